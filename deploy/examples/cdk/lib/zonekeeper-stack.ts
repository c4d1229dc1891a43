// zonekeeper on an existing EKS cluster with the AWS CDK: an IRSA ServiceAccount whose role may change
// one hosted zone, and the Helm chart from this repository installed with cluster.addHelmChart.
import * as path from 'path';
import { Stack, StackProps } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import { KubectlV31Layer } from '@aws-cdk/lambda-layer-kubectl-v31';
import { Construct } from 'constructs';

export interface ZonekeeperStackProps extends StackProps {
  /** The existing cluster; its OIDC provider and kubectl role must exist (eks.Cluster makes both). */
  readonly clusterName: string;
  readonly kubectlRoleArn: string;
  readonly oidcProviderArn: string;
  /** Route53 hosted zone ID zonekeeper may change. */
  readonly hostedZoneId: string;
  /** Domain filter: names under this domain only. */
  readonly domain: string;
  /** TXT owner id; keep the one external-dns used to take over its records. */
  readonly ownerId?: string;
}

export class ZonekeeperStack extends Stack {
  constructor(scope: Construct, id: string, props: ZonekeeperStackProps) {
    super(scope, id, props);
    const namespace = 'external-dns';

    // Imported in this stack, so everything added to it below is created here too.
    const cluster = eks.Cluster.fromClusterAttributes(this, 'Cluster', {
      clusterName: props.clusterName,
      kubectlRoleArn: props.kubectlRoleArn,
      openIdConnectProvider: eks.OpenIdConnectProvider.fromOpenIdConnectProviderArn(this, 'Oidc', props.oidcProviderArn),
      kubectlLayer: new KubectlV31Layer(this, 'Kubectl'),
    });

    const ns = cluster.addManifest('ZonekeeperNamespace', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });

    // addServiceAccount creates the IAM role trusted by the cluster's OIDC provider for exactly this
    // ServiceAccount, and annotates the ServiceAccount with eks.amazonaws.com/role-arn.
    const sa = cluster.addServiceAccount('ZonekeeperServiceAccount', {
      name: 'external-dns-sa',
      namespace,
    });
    sa.node.addDependency(ns);
    sa.addToPrincipalPolicy(new iam.PolicyStatement({
      actions: ['route53:ChangeResourceRecordSets', 'route53:ListResourceRecordSets', 'route53:GetHostedZone', 'route53:ListTagsForResources'],
      resources: [`arn:aws:route53:::hostedzone/${props.hostedZoneId}`],
    }));
    sa.addToPrincipalPolicy(new iam.PolicyStatement({
      actions: ['route53:ListHostedZones'],
      resources: ['*'],
    }));

    // The chart directory is uploaded as an asset; use `repository` and `chart` instead once the chart
    // is published to a repository.
    const chartAsset = new s3assets.Asset(this, 'ZonekeeperChart', {
      path: path.join(__dirname, '..', '..', '..', '..', 'charts', 'zonekeeper'),
    });

    const chart = cluster.addHelmChart('Zonekeeper', {
      chartAsset,
      release: 'external-dns',
      namespace,
      values: {
        provider: { name: 'aws' },
        aws: { region: this.region, zoneType: 'public' },
        // The ServiceAccount above carries the IRSA annotation; the chart makes the RBAC for it.
        serviceAccount: { create: false, name: sa.serviceAccountName },
        rbac: { create: true },
        sources: ['service', 'ingress'],
        domainFilters: [props.domain],
        policy: 'sync',
        registry: 'txt',
        txtOwnerId: props.ownerId ?? 'external-dns',
        // Two replicas with leader election, and a PodDisruptionBudget so node drains keep one running.
        replicaCount: 2,
        podDisruptionBudget: { enabled: true },
      },
    });
    chart.node.addDependency(sa);
  }
}
