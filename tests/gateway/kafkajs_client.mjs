// kafkajs (2.2.4, from tests/interop/node_modules) through a kacl gateway, for test_gateway.py.
//   node kafkajs_client.mjs '<json>'   json: {broker, user, password, allowedTopic,
//                                             deniedTopic, group, deniedGroup, n}
// Prints one JSON line: what each step answered (error types, records consumed).
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "..", "interop", "package.json"));
const { Kafka, logLevel } = require("kafkajs");

const cfg = JSON.parse(process.argv[2]);
// kafkajs hides some broker errors behind its own (a refused FindCoordinator becomes
// KafkaJSGroupCoordinatorNotFound): the error types it logs are collected too.
const logged = new Set();
const logCreator = () => ({ log }) => {
  const e = log && log.error;
  if (e && typeof e === "object" && e.type) logged.add(e.type);
};
const kafka = new Kafka({
  logCreator,
  clientId: "kacl-gateway-kafkajs",
  brokers: [cfg.broker],
  sasl: { mechanism: "plain", username: cfg.user, password: cfg.password },
  ssl: false,
  logLevel: logLevel.DEBUG,
  retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 },
  connectionTimeout: 5000,
  requestTimeout: 15000,
});
const out = {};
const errType = (e) => (e && (e.type || (e.cause && e.cause.type) || e.name)) || String(e);

const loggedSince = () => { const s = [...logged].sort(); logged.clear(); return s; };
const producer = kafka.producer({ allowAutoTopicCreation: false });
await producer.connect();
try {
  const msgs = Array.from({ length: cfg.n }, (_, i) => ({ value: `kjs-${i}` }));
  const res = await producer.send({ topic: cfg.allowedTopic, acks: -1, messages: msgs });
  out.produceAllowed = res.map((r) => r.errorCode);
} catch (e) {
  out.produceAllowed = errType(e);
}
try {
  await producer.send({ topic: cfg.deniedTopic, acks: -1, messages: [{ value: "no" }] });
  out.produceDenied = null;
} catch (e) {
  out.produceDenied = errType(e);
}
await producer.disconnect();

async function consume(group, want, ms) {
  const consumer = kafka.consumer({ groupId: group, sessionTimeout: 6000, heartbeatInterval: 1000,
                                    retry: { retries: 5, initialRetryTime: 200 } });
  const got = [];
  let error = null;
  consumer.on(consumer.events.CRASH, (ev) => { error = errType(ev.payload.error); });
  try {
    await consumer.connect();
    await consumer.subscribe({ topic: cfg.allowedTopic, fromBeginning: true });
    await consumer.run({ autoCommit: true, eachMessage: async ({ message }) => { got.push(message.value.toString()); } });
    const deadline = Date.now() + ms;
    while (got.length < want && !error && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (e) {
    error = errType(e);
  } finally {
    await consumer.disconnect().catch(() => {});
  }
  return { got: got.sort(), error, logged: loggedSince() };
}
loggedSince();
out.consumeAllowed = await consume(cfg.group, cfg.n, 40000);
out.consumeDenied = await consume(cfg.deniedGroup, 1, 20000);
console.log(JSON.stringify(out));
process.exit(0);
