#!/usr/bin/env node
// Example entry point: install zonekeeper into an existing EKS cluster. The values come from cdk.json's
// context (or -c key=value).
import { App } from 'aws-cdk-lib';
import { ZonekeeperStack } from '../lib/zonekeeper-stack';

const app = new App();
const ctx = (key: string): string => {
  const v = app.node.tryGetContext(key);
  if (!v) throw new Error(`missing context value ${key} (cdk.json or -c ${key}=...)`);
  return v;
};

new ZonekeeperStack(app, 'Zonekeeper', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  clusterName: ctx('clusterName'),
  kubectlRoleArn: ctx('kubectlRoleArn'),
  oidcProviderArn: ctx('oidcProviderArn'),
  hostedZoneId: ctx('hostedZoneId'),
  domain: ctx('domain'),
});
