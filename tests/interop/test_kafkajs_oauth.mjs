// kafkajs 2.2.4 logging in to kacl with SASL/OAUTHBEARER: its `oauthBearerProvider` gets an
// access token from the test OpenID provider (oidc_issuer.py) with the client credentials
// grant, as a service would, and kacl validates it through the provider's JWKS endpoint.
//
// Checked: the token's `sub` is the principal the ACLs see (a topic creation refused, then
// allowed by an ACL for exactly that principal); an expired token is refused (kafkajs does
// not read RFC 7628's error challenge, so it sees the broker close the connection, as it
// would with Kafka) and kacl logs why.
//
// Run: node --test test_kafkajs_oauth.mjs   (KACL_PYTHON: a python with `cryptography`)

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import kafkajs from 'kafkajs'
import { logTail, startIssuer, startServer, stopServer } from './processes.mjs'

const { Kafka, logLevel, AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes } = kafkajs

const ADMIN = { name: 'admin', password: 'admin-secret' }
const CLIENT = { id: 'svc-reporting', secret: 'reporting-secret' }
const TEST_TIMEOUT_MS = 120_000

function oauthProperties (issuer) {
  return [
    'sasl.enabled.mechanisms=PLAIN,OAUTHBEARER',
    'listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class=' +
      'org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler',
    `sasl.oauthbearer.jwks.endpoint.url=${issuer.jwks_uri}`,
    'sasl.oauthbearer.expected.audience=kafka',
    `sasl.oauthbearer.expected.issuer=${issuer.issuer}`
  ]
}

// The client credentials grant (RFC 6749 4.4) with HTTP Basic client authentication.
async function clientCredentialsToken (issuer) {
  const basic = Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')
  const response = await fetch(issuer.token_endpoint, {
    method: 'POST',
    headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=kafka'
  })
  assert.equal(response.status, 200, await response.clone().text())
  return (await response.json()).access_token
}

// A token for `sub` that expired `ago` seconds ago (the provider's test-only endpoint).
async function expiredToken (issuer, sub, ago) {
  const response = await fetch(`${issuer.url}/admin/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `sub=${encodeURIComponent(sub)}&lifetime_s=${-ago}`
  })
  return (await response.json()).access_token
}

function kafka (server, sasl) {
  return new Kafka({
    clientId: 'kacl-interop-oauth',
    brokers: [server.sasl],
    ssl: false,
    sasl,
    connectionTimeout: 5000,
    requestTimeout: 15000,
    retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 500 },
    logLevel: process.env.KACL_INTEROP_DEBUG ? logLevel.DEBUG : logLevel.NOTHING
  })
}

async function withIssuerAndServer (body) {
  const issuer = await startIssuer(['--client', `${CLIENT.id}:${CLIENT.secret}`])
  let server
  const admins = []
  try {
    server = await startServer(oauthProperties(issuer))
    const connect = async sasl => {
      const admin = kafka(server, sasl).admin()
      admins.push(admin)
      await admin.connect()
      return admin
    }
    await body({ issuer, server, connect })
  } catch (error) {
    if (server) console.error(`--- kacl serve log (last lines) ---\n${logTail(server)}`)
    throw error
  } finally {
    for (const admin of admins) await admin.disconnect().catch(() => {})
    if (server) await stopServer(server)
    await stopServer(issuer)
  }
}

test('oauth: the token subject is the principal', { timeout: TEST_TIMEOUT_MS }, () =>
  withIssuerAndServer(async ({ issuer, server, connect }) => {
    let calls = 0
    const service = await connect({
      mechanism: 'oauthbearer',
      oauthBearerProvider: async () => {
        calls += 1
        return { value: await clientCredentialsToken(issuer) }
      }
    })
    assert.ok(calls >= 1)
    await assert.rejects(
      service.createTopics({ topics: [{ topic: 'reports', numPartitions: 1 }] }),
      error => (error.errors || [error]).some(e => e.type === 'TOPIC_AUTHORIZATION_FAILED')
    )
    const admin = await connect({ mechanism: 'plain', username: ADMIN.name, password: ADMIN.password })
    await admin.createAcls({
      acl: [{
        resourceType: AclResourceTypes.TOPIC,
        resourceName: 'reports',
        resourcePatternType: ResourcePatternTypes.LITERAL,
        principal: `User:${CLIENT.id}`,
        host: '*',
        operation: AclOperationTypes.CREATE,
        permissionType: AclPermissionTypes.ALLOW
      }]
    })
    // Without DESCRIBE on the topic it cannot see it in Metadata, so no waiting for leaders.
    assert.equal(
      await service.createTopics({ topics: [{ topic: 'reports', numPartitions: 1 }], waitForLeaders: false }),
      true
    )
    assert.ok((await admin.listTopics()).includes('reports'))
    const log = readFileSync(server.log, 'utf8')
    assert.match(log, new RegExp(`mechanism=OAUTHBEARER principal=User:${CLIENT.id}`))
  })
)

test('oauth: an expired token is refused and the reason logged', { timeout: TEST_TIMEOUT_MS }, () =>
  withIssuerAndServer(async ({ issuer, server, connect }) => {
    const token = await expiredToken(issuer, CLIENT.id, 3600)
    await assert.rejects(async () => {
      const service = await connect({ mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: token }) })
      await service.listTopics()
    })
    const refused = readFileSync(server.log, 'utf8').split('\n').filter(l => l.includes('refused authentication token'))
    assert.ok(refused.length >= 1, 'kacl logs the refusal')
    assert.match(refused[0], /expired/)
  })
)
