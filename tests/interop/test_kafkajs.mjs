// kafkajs 2.2.4 (pure JavaScript) against kacl serve, through its admin client.
//
// The same ACL cases as the Python suites (acl_cases.json); topic tests are named
// "topic: ...". Each test gets a fresh server from `python harness.py serve` (the shared
// Python harness, see processes.mjs).
//
// Run: node --test test_kafkajs.mjs   (KACL_PYTHON picks the python, default python3)

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import kafkajs from 'kafkajs'
import { logTail, startServer, stopServer } from './processes.mjs'

const {
  Kafka,
  logLevel,
  AclResourceTypes,
  AclOperationTypes,
  AclPermissionTypes,
  ResourcePatternTypes,
  ConfigResourceTypes
} = kafkajs

const HERE = path.dirname(fileURLToPath(import.meta.url))
const CASES = JSON.parse(readFileSync(path.join(HERE, 'acl_cases.json'), 'utf8'))
const ADMIN = { name: 'admin', password: 'admin-secret' }
const ALICE = { name: 'alice', password: 'alice-secret' }
const TEST_TIMEOUT_MS = 120_000

// --- the server ----------------------------------------------------------------------

// Runs `body(session)` against a fresh server (with `extra` server properties, KEY=VALUE);
// disconnects its clients and stops it after.
async function withServer (body, extra = []) {
  const server = await startServer(extra)
  const admins = []
  const session = {
    server,
    // A connected admin client for `user` over SASL_PLAINTEXT (`options`: more Kafka config).
    async admin (user = ADMIN, mechanism = 'plain', options = {}) {
      const admin = kafkaFor(server, user, mechanism, options).admin()
      admins.push(admin)
      await admin.connect()
      return admin
    }
  }
  try {
    await body(session)
  } catch (error) {
    console.error(`--- kacl serve log (last lines) ---\n${logTail(server)}`)
    throw error
  } finally {
    for (const admin of admins) await admin.disconnect().catch(() => {})
    await stopServer(server)
  }
}

function kafkaFor (server, user, mechanism, options = {}) {
  return new Kafka({
    ...options,
    clientId: 'kacl-interop',
    brokers: [server.sasl],
    ssl: false,
    sasl: { mechanism, username: user.name, password: user.password },
    connectionTimeout: 5000,
    requestTimeout: 15000,
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 },
    logLevel: process.env.KACL_INTEROP_DEBUG ? logLevel.DEBUG : logLevel.NOTHING
  })
}

// --- the client's own types ----------------------------------------------------------

function aclEntry (spec) {
  return {
    resourceType: AclResourceTypes[spec.resource_type],
    resourceName: spec.name,
    resourcePatternType: ResourcePatternTypes[spec.pattern_type],
    principal: spec.principal,
    host: spec.host,
    operation: AclOperationTypes[spec.operation],
    permissionType: AclPermissionTypes[spec.permission]
  }
}

// kafkajs leaves a filter field out (undefined) to match anything; it is sent as null.
function aclFilter (spec) {
  const filter = aclEntry(spec)
  for (const field of ['resourceName', 'principal', 'host']) {
    if (filter[field] === null) filter[field] = undefined
  }
  return filter
}

const nameOf = (table, code) => Object.keys(table).find(name => table[name] === code) ?? `code ${code}`

// One ACL as a comparable string of Kafka names, in acl_cases.json's field order.
function keyOf ({ resourceType, resourceName, resourcePatternType, principal, host, operation, permissionType }) {
  return JSON.stringify([
    nameOf(AclResourceTypes, resourceType),
    resourceName,
    nameOf(ResourcePatternTypes, resourcePatternType),
    principal,
    host,
    nameOf(AclOperationTypes, operation),
    nameOf(AclPermissionTypes, permissionType)
  ])
}

const specKey = spec => keyOf(aclEntry(spec))
const expected = names => names.map(name => specKey(CASES.seed[name])).sort()
const seedSpecs = () => Object.values(CASES.seed)
const ANY_FILTER = CASES.describe[0].filter

async function createAcls (admin, specs) {
  assert.equal(await admin.createAcls({ acl: specs.map(aclEntry) }), true)
}

async function describeAcls (admin, spec) {
  const { resources } = await admin.describeAcls(aclFilter(spec))
  return resources.flatMap(resource => resource.acls.map(acl => keyOf({ ...resource, ...acl }))).sort()
}

// Every error `type` (Kafka error name) in an error, its causes and aggregated errors.
function errorTypes (error) {
  const found = []
  const seen = new Set()
  const visit = e => {
    if (!e || typeof e !== 'object' || seen.has(e)) return
    seen.add(e)
    if (e.type) found.push(e.type)
    if (e.name) found.push(e.name)
    visit(e.cause)
    for (const inner of e.errors ?? []) visit(inner)
  }
  visit(error)
  return found
}

async function assertRejectsWith (promise, type) {
  await assert.rejects(promise, error => {
    assert.ok(
      errorTypes(error).includes(type),
      `expected ${type}, got ${error.name}: ${error.message} [${errorTypes(error).join(', ')}]`
    )
    return true
  })
}

const opts = { timeout: TEST_TIMEOUT_MS }

// --- ACLs ----------------------------------------------------------------------------

test('acl: create as super user', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    await createAcls(admin, seedSpecs())
    assert.deepEqual(await describeAcls(admin, ANY_FILTER), expected(Object.keys(CASES.seed)))
  }))

test('acl: create is idempotent', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    await createAcls(admin, seedSpecs())
    await createAcls(admin, seedSpecs())
    assert.deepEqual(await describeAcls(admin, ANY_FILTER), expected(Object.keys(CASES.seed)))
  }))

for (const { id, filter, expect } of CASES.describe) {
  test(`acl: describe ${id}`, opts, () =>
    withServer(async session => {
      const admin = await session.admin()
      await createAcls(admin, seedSpecs())
      assert.deepEqual(await describeAcls(admin, filter), expected(expect))
    }))
}

test('acl: delete with filters', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    await createAcls(admin, seedSpecs())
    const { filterResponses } = await admin.deleteAcls({ filters: CASES.delete.filters.map(aclFilter) })
    assert.deepEqual(filterResponses.map(r => r.errorCode), CASES.delete.filters.map(() => 0))
    assert.deepEqual(
      filterResponses.map(r => r.matchingAcls.map(keyOf).sort()),
      CASES.delete.expect.map(expected)
    )
    assert.deepEqual(await describeAcls(admin, ANY_FILTER), expected(CASES.delete.remaining))
  }))

test('acl: describe refused for a non-super user', opts, () =>
  withServer(async session => {
    await createAcls(await session.admin(), seedSpecs())
    const alice = await session.admin(ALICE)
    await assertRejectsWith(alice.describeAcls(aclFilter(ANY_FILTER)), 'CLUSTER_AUTHORIZATION_FAILED')
  }))

test('acl: create refused for a non-super user', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    const alice = await session.admin(ALICE)
    const specs = Object.values(CASES.non_super_user_create)
    // kafkajs reports the first failed entry of the response.
    await assertRejectsWith(alice.createAcls({ acl: specs.map(aclEntry) }), 'CLUSTER_AUTHORIZATION_FAILED')
    assert.deepEqual(await describeAcls(admin, ANY_FILTER), [])
  }))

test('acl: delete refused for a non-super user', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    await createAcls(admin, seedSpecs())
    const alice = await session.admin(ALICE)
    await assertRejectsWith(alice.deleteAcls({ filters: [aclFilter(ANY_FILTER)] }), 'CLUSTER_AUTHORIZATION_FAILED')
    assert.deepEqual(await describeAcls(admin, ANY_FILTER), expected(Object.keys(CASES.seed)))
  }))

test('acl: a CLUSTER DESCRIBE grant lets a user describe', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    await createAcls(admin, [...seedSpecs(), CASES.grant_cluster_describe_to_alice])
    const alice = await session.admin(ALICE)
    const want = [...expected(Object.keys(CASES.seed)), specKey(CASES.grant_cluster_describe_to_alice)].sort()
    assert.deepEqual(await describeAcls(alice, ANY_FILTER), want)
  }))

test('auth: wrong password refused', opts, () =>
  withServer(async session => {
    const wrong = { name: ALICE.name, password: `not-${ALICE.password}` }
    await assertRejectsWith(session.admin(wrong), 'KafkaJSSASLAuthenticationError')
  }))

// --- topics --------------------------------------------------------------------------

async function partitionCounts (admin) {
  const { topics } = await admin.fetchTopicMetadata()
  const counts = Object.fromEntries(topics.map(t => [t.name, t.partitions.length]))
  assert.deepEqual((await admin.listTopics()).sort(), Object.keys(counts).sort())
  return counts
}

const newTopic = (topic, numPartitions) => ({ topic, numPartitions, replicationFactor: 1 })

test('topic: create and list', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    assert.equal(await admin.createTopics({ topics: [newTopic('orders', 3), newTopic('audit', 1)] }), true)
    const counts = await partitionCounts(admin)
    assert.equal(counts.orders, 3)
    assert.equal(counts.audit, 1)
  }))

test('topic: create with broker defaults', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    // Leaving both out sends -1/-1 (on CreateTopics v3): num.partitions (2 in harness.py) applies.
    assert.equal(await admin.createTopics({ topics: [{ topic: 'defaults' }] }), true)
    assert.equal((await partitionCounts(admin)).defaults, 2)
  }))

test('topic: create duplicate refused', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    assert.equal(await admin.createTopics({ topics: [newTopic('orders', 1)] }), true)
    // kafkajs turns TOPIC_ALREADY_EXISTS (36) for every topic into `false`.
    assert.equal(await admin.createTopics({ topics: [newTopic('orders', 4)] }), false)
    assert.equal((await partitionCounts(admin)).orders, 1)
  }))

for (const [id, name] of [['slash', 'bad/name'], ['dot-dot', '..'], ['250-chars', 'x'.repeat(250)]]) {
  test(`topic: create invalid name refused (${id})`, opts, () =>
    withServer(async session => {
      const admin = await session.admin()
      await assertRejectsWith(admin.createTopics({ topics: [newTopic(name, 1)] }), 'INVALID_TOPIC_EXCEPTION')
      assert.equal(name in (await partitionCounts(admin)), false)
    }))
}

test('topic: create colliding name refused', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    assert.equal(await admin.createTopics({ topics: [newTopic('metrics.eu', 1)] }), true)
    await assertRejectsWith(admin.createTopics({ topics: [newTopic('metrics_eu', 1)] }), 'INVALID_TOPIC_EXCEPTION')
  }))

test('topic: create partitions increases', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    await admin.createTopics({ topics: [newTopic('orders', 2)] })
    await admin.createPartitions({ topicPartitions: [{ topic: 'orders', count: 5 }] })
    assert.equal((await partitionCounts(admin)).orders, 5)
  }))

for (const [id, count] of [['fewer', 3], ['same', 4]]) {
  test(`topic: create partitions not larger refused (${id})`, opts, () =>
    withServer(async session => {
      const admin = await session.admin()
      await admin.createTopics({ topics: [newTopic('orders', 4)] })
      await assertRejectsWith(
        admin.createPartitions({ topicPartitions: [{ topic: 'orders', count }] }),
        'INVALID_PARTITIONS'
      )
      assert.equal((await partitionCounts(admin)).orders, 4)
    }))
}

test('topic: delete', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    await admin.createTopics({ topics: [newTopic('keep', 1), newTopic('drop-a', 1), newTopic('drop-b', 1)] })
    await admin.deleteTopics({ topics: ['drop-a', 'drop-b'] })
    const counts = await partitionCounts(admin)
    assert.ok('keep' in counts)
    assert.ok(!('drop-a' in counts) && !('drop-b' in counts))
  }))

test('topic: delete missing refused', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    // UNKNOWN_TOPIC_OR_PARTITION is retriable to kafkajs: it retries, then reports it as the cause.
    await assertRejectsWith(admin.deleteTopics({ topics: ['never-created'] }), 'UNKNOWN_TOPIC_OR_PARTITION')
  }))

// --- SASL re-authentication (KIP-368) -------------------------------------------------

const REAUTH_MS = 3000

test('auth: sessions are renewed by re-authentication', opts, () =>
  withServer(async session => {
    // kafkajs re-authenticates once less than `reauthenticationThreshold` of the session
    // the broker granted (SaslAuthenticate's session_lifetime_ms) is left.
    const admin = await session.admin(ADMIN, 'plain', { reauthenticationThreshold: 1000 })
    const deadline = Date.now() + 3 * REAUTH_MS + 1000
    let calls = 0
    while (Date.now() < deadline) {
      await describeAcls(admin, ANY_FILTER)
      calls += 1
      await new Promise(resolve => setTimeout(resolve, 250))
    }
    const log = readFileSync(session.server.log, 'utf8')
    assert.ok(calls > 10)
    assert.ok(log.includes('re-authenticated'), 'the server logged no renewal')
    assert.ok(!log.includes('session expired'), 'the server closed an expired session')
  }, [`connections.max.reauth.ms=${REAUTH_MS}`]))

// --- configs -------------------------------------------------------------------------

function configsOf (described) {
  const [resource] = described.resources
  assert.equal(resource.errorCode, 0, resource.errorMessage)
  return Object.fromEntries(resource.configEntries.map(e => [e.configName, e]))
}

test('config: describeConfigs and alterConfigs', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    assert.equal(
      await admin.createTopics({
        topics: [{ topic: 'cfg', numPartitions: 1, replicationFactor: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }]
      }),
      true
    )
    const describe = () =>
      admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: 'cfg' }], includeSynonyms: false })
    let configs = configsOf(await describe())
    assert.equal(configs['cleanup.policy'].configValue, 'compact')
    assert.equal(configs['cleanup.policy'].isDefault, false)
    assert.equal(configs['retention.ms'].configValue, '604800000')
    assert.equal(configs['retention.ms'].isSensitive, false)
    if (configs['retention.ms'].configSource !== undefined) {
      assert.equal(configs['cleanup.policy'].configSource, 1) // TOPIC_CONFIG
      assert.equal(configs['retention.ms'].configSource, 5) // DEFAULT_CONFIG
    }

    // alterConfigs replaces the whole set.
    const altered = await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: 'cfg', configEntries: [{ name: 'retention.ms', value: '1000' }] }]
    })
    assert.equal(altered.resources[0].errorCode, 0)
    configs = configsOf(await describe())
    assert.equal(configs['retention.ms'].configValue, '1000')
    assert.equal(configs['cleanup.policy'].configValue, 'delete')

    const broker = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configNames: ['listener.name.sasl_plaintext.plain.sasl.jaas.config', 'super.users'] }],
      includeSynonyms: false
    })
    const brokerConfigs = configsOf(broker)
    assert.equal(brokerConfigs['listener.name.sasl_plaintext.plain.sasl.jaas.config'].isSensitive, true)
    assert.equal(brokerConfigs['listener.name.sasl_plaintext.plain.sasl.jaas.config'].configValue, null)
    // Masked as Kafka 4.4 masks it (its broker config does not type the authorizer's keys).
    assert.equal(brokerConfigs['super.users'].configValue, null)
    assert.equal(brokerConfigs['super.users'].isSensitive, true)
    assert.equal(brokerConfigs['super.users'].readOnly, true)
  }))

// --- admin APIs of newer tools (issue 29): no groups on a standalone node ------------

test('groups: listGroups is empty and describeGroups finds a dead group', opts, () =>
  withServer(async session => {
    const admin = await session.admin()
    // ListGroups to every broker of Metadata.
    assert.deepEqual(await admin.listGroups(), { groups: [] })
    // FindCoordinator (this node), then DescribeGroups: Kafka's answer for an unknown group.
    const { groups } = await admin.describeGroups(['nope'])
    assert.equal(groups.length, 1)
    assert.equal(groups[0].groupId, 'nope')
    assert.equal(groups[0].state, 'Dead')
    assert.equal(groups[0].errorCode, 0)
    assert.deepEqual(groups[0].members, [])
  }))

test('groups: describeGroups refused without DESCRIBE on the group', opts, () =>
  withServer(async session => {
    const alice = await session.admin(ALICE)
    // FindCoordinator answers GROUP_AUTHORIZATION_FAILED, which kafkajs reports as not finding
    // the coordinator (it does the same against Kafka).
    await assertRejectsWith(alice.describeGroups(['theirs']), 'KafkaJSGroupCoordinatorNotFound')
  }))
