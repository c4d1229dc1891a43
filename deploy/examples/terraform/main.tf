# zonekeeper on EKS, the way many external-dns users run it from Terraform: Terraform owns the IAM role
# (IRSA), the ServiceAccount and the RBAC; the chart only runs the Deployment (rbac.create=false,
# serviceAccount.create=false). test/deploy renders the chart with these same --set values.

provider "aws" {
  region = var.region
}

data "aws_eks_cluster" "this" {
  name = var.cluster_name
}

data "aws_eks_cluster_auth" "this" {
  name = var.cluster_name
}

provider "kubernetes" {
  host                   = data.aws_eks_cluster.this.endpoint
  cluster_ca_certificate = base64decode(data.aws_eks_cluster.this.certificate_authority[0].data)
  token                  = data.aws_eks_cluster_auth.this.token
}

provider "helm" {
  kubernetes {
    host                   = data.aws_eks_cluster.this.endpoint
    cluster_ca_certificate = base64decode(data.aws_eks_cluster.this.certificate_authority[0].data)
    token                  = data.aws_eks_cluster_auth.this.token
  }
}

# --- IAM role for the ServiceAccount (IRSA) -------------------------------------------------------------

locals {
  oidc_issuer = replace(data.aws_eks_cluster.this.identity[0].oidc[0].issuer, "https://", "")
}

data "aws_iam_openid_connect_provider" "this" {
  url = data.aws_eks_cluster.this.identity[0].oidc[0].issuer
}

data "aws_iam_policy_document" "trust" {
  statement {
    actions = ["sts:AssumeRoleWithWebIdentity"]
    principals {
      type        = "Federated"
      identifiers = [data.aws_iam_openid_connect_provider.this.arn]
    }
    condition {
      test     = "StringEquals"
      variable = "${local.oidc_issuer}:sub"
      values   = ["system:serviceaccount:${var.namespace}:${var.service_account_name}"]
    }
    condition {
      test     = "StringEquals"
      variable = "${local.oidc_issuer}:aud"
      values   = ["sts.amazonaws.com"]
    }
  }
}

# The permissions external-dns documents for Route53: change and list records in the one zone, list zones.
data "aws_iam_policy_document" "route53" {
  statement {
    actions   = ["route53:ChangeResourceRecordSets", "route53:ListResourceRecordSets", "route53:GetHostedZone", "route53:ListTagsForResources"]
    resources = ["arn:aws:route53:::hostedzone/${var.hosted_zone_id}"]
  }
  statement {
    actions   = ["route53:ListHostedZones"]
    resources = ["*"]
  }
}

resource "aws_iam_role" "zonekeeper" {
  name               = "${var.cluster_name}-zonekeeper"
  assume_role_policy = data.aws_iam_policy_document.trust.json
}

resource "aws_iam_role_policy" "route53" {
  name   = "route53"
  role   = aws_iam_role.zonekeeper.id
  policy = data.aws_iam_policy_document.route53.json
}

# --- Kubernetes identity and RBAC (the chart's rules for sources service and ingress) -------------------

resource "kubernetes_namespace_v1" "this" {
  metadata {
    name = var.namespace
  }
}

resource "kubernetes_service_account_v1" "zonekeeper" {
  metadata {
    name      = var.service_account_name
    namespace = kubernetes_namespace_v1.this.metadata[0].name
    annotations = {
      "eks.amazonaws.com/role-arn" = aws_iam_role.zonekeeper.arn
    }
  }
}

resource "kubernetes_cluster_role_v1" "zonekeeper" {
  metadata {
    name = "zonekeeper"
  }
  # Read-only on what the sources watch.
  rule {
    api_groups = [""]
    resources  = ["services"]
    verbs      = ["get", "list", "watch"]
  }
  rule {
    api_groups = [""]
    resources  = ["pods"]
    verbs      = ["get", "list", "watch"]
  }
  rule {
    api_groups = ["discovery.k8s.io"]
    resources  = ["endpointslices"]
    verbs      = ["get", "list", "watch"]
  }
  rule {
    api_groups = [""]
    resources  = ["nodes"]
    verbs      = ["get", "list", "watch"]
  }
  rule {
    api_groups = ["networking.k8s.io"]
    resources  = ["ingresses"]
    verbs      = ["get", "list", "watch"]
  }
  # Events on the Services and Ingresses zonekeeper publishes.
  rule {
    api_groups = [""]
    resources  = ["events"]
    verbs      = ["create", "patch"]
  }
  rule {
    api_groups = ["events.k8s.io"]
    resources  = ["events"]
    verbs      = ["create", "patch"]
  }
}

resource "kubernetes_cluster_role_binding_v1" "zonekeeper" {
  metadata {
    name = "zonekeeper"
  }
  role_ref {
    api_group = "rbac.authorization.k8s.io"
    kind      = "ClusterRole"
    name      = kubernetes_cluster_role_v1.zonekeeper.metadata[0].name
  }
  subject {
    kind      = "ServiceAccount"
    name      = kubernetes_service_account_v1.zonekeeper.metadata[0].name
    namespace = kubernetes_namespace_v1.this.metadata[0].name
  }
}

# --- The release ----------------------------------------------------------------------------------------

resource "helm_release" "zonekeeper" {
  name      = "external-dns"
  namespace = kubernetes_namespace_v1.this.metadata[0].name
  # The chart from this repository; point at your chart repository instead once you publish it.
  chart = "${path.module}/../../../charts/zonekeeper"

  set {
    name  = "rbac.create"
    value = "false"
  }
  set {
    name  = "serviceAccount.create"
    value = "false"
  }
  set {
    name  = "serviceAccount.name"
    value = kubernetes_service_account_v1.zonekeeper.metadata[0].name
  }
  set {
    name  = "provider"
    value = "aws"
  }
  set {
    name  = "aws.region"
    value = var.region
  }
  set {
    name  = "aws.zoneType"
    value = "public"
  }
  set {
    name  = "sources"
    value = "{ingress,service}"
  }
  set {
    name  = "domainFilters"
    value = "{${var.domain}}"
  }
  set {
    name  = "txtOwnerId"
    value = var.owner_id
  }
  set {
    name  = "policy"
    value = "sync"
  }
  set {
    name  = "logLevel"
    value = "warn"
  }

  depends_on = [kubernetes_cluster_role_binding_v1.zonekeeper, aws_iam_role_policy.route53]
}
