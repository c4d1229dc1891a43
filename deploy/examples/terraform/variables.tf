variable "cluster_name" {
  description = "EKS cluster name."
  type        = string
}

variable "region" {
  description = "AWS region of the cluster (passed to zonekeeper as aws.region)."
  type        = string
  default     = "eu-west-1"
}

variable "hosted_zone_id" {
  description = "Route53 hosted zone zonekeeper may change (ID only, e.g. Z0123456789ABCDEFGHIJ)."
  type        = string
}

variable "domain" {
  description = "Domain filter: zonekeeper manages names under this domain only."
  type        = string
}

variable "owner_id" {
  description = "TXT owner id. Keep the one external-dns used, to take over its records."
  type        = string
  default     = "external-dns"
}

variable "namespace" {
  type    = string
  default = "external-dns"
}

variable "service_account_name" {
  type    = string
  default = "external-dns"
}
