// The Java AdminClient of Kafka 4.x against kacl serve: the admin calls that newer tools and
// consoles make (kafka-topics.sh --describe, kafka-reassign-partitions.sh, kafka-log-dirs.sh,
// kafka-consumer-groups.sh, kafka-transactions.sh), each printed as one `key=value` line that
// tests/interop/test_java_admin.py checks. Usage: AdminProbe BOOTSTRAP USER PASSWORD
// (SASL_PLAINTEXT with PLAIN). An exception is printed as its simple class name.

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

public final class AdminProbe {
    interface Call {
        String run() throws Exception;
    }

    static void probe(String key, Call call) {
        String value;
        try {
            value = call.run();
        } catch (ExecutionException e) {
            value = "error:" + e.getCause().getClass().getSimpleName();
        } catch (Exception e) {
            value = "error:" + e.getClass().getSimpleName();
        }
        System.out.println(key + "=" + value);
        System.out.flush();
    }

    static String partitions(TopicDescription description) {
        List<String> parts = new ArrayList<>();
        for (TopicPartitionInfo p : description.partitions()) {
            parts.add(p.partition() + ":" + p.leader().id() + ":" + p.replicas().size());
        }
        return String.join(",", parts);
    }

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        props.put("sasl.mechanism", "PLAIN");
        props.put("sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                + args[1] + "\" password=\"" + args[2] + "\";");
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        try (Admin admin = Admin.create(props)) {
            probe("create", () -> {
                admin.createTopics(List.of(new NewTopic("orders", 5, (short) 1),
                    new NewTopic("audit", 1, (short) 1))).all().get();
                return "ok";
            });
            // Two partitions per DescribeTopicPartitions answer: the client follows the cursor.
            probe("describe_paged", () -> {
                Map<String, TopicDescription> topics = admin.describeTopics(List.of("orders", "audit"),
                    new DescribeTopicsOptions().partitionSizeLimitPerResponse(2)).allTopicNames().get();
                return new TreeMap<>(topics).entrySet().stream()
                    .map(e -> e.getKey() + "[" + partitions(e.getValue()) + "]")
                    .reduce((a, b) -> a + ";" + b).orElse("");
            });
            probe("describe_missing", () -> {
                admin.describeTopics(List.of("missing")).allTopicNames().get();
                return "ok";
            });
            probe("reassignments_before", () ->
                String.valueOf(admin.listPartitionReassignments().reassignments().get().size()));
            probe("reassign_same_node", () -> {
                admin.alterPartitionReassignments(Map.of(new TopicPartition("orders", 0),
                    Optional.of(new NewPartitionReassignment(List.of(1))))).all().get();
                return "ok";
            });
            probe("reassign_unknown_broker", () -> {
                admin.alterPartitionReassignments(Map.of(new TopicPartition("orders", 1),
                    Optional.of(new NewPartitionReassignment(List.of(2))))).all().get();
                return "ok";
            });
            probe("reassign_cancel", () -> {
                admin.alterPartitionReassignments(Map.of(new TopicPartition("orders", 1),
                    Optional.<NewPartitionReassignment>empty())).all().get();
                return "ok";
            });
            probe("reassignments_after", () ->
                String.valueOf(admin.listPartitionReassignments().reassignments().get().size()));
            probe("log_dirs", () -> {
                Map<Integer, Map<String, LogDirDescription>> dirs =
                    admin.describeLogDirs(List.of(1)).allDescriptions().get();
                List<String> out = new ArrayList<>();
                for (Map.Entry<String, LogDirDescription> e : dirs.get(1).entrySet()) {
                    LogDirDescription d = e.getValue();
                    out.add(e.getKey() + "|replicas=" + d.replicaInfos().size() + "|total="
                        + d.totalBytes().isPresent() + "|error=" + (d.error() == null ? "none" : d.error()));
                }
                return String.join(",", out);
            });
            probe("list_groups", () -> String.valueOf(admin.listGroups().all().get().size()));
            probe("list_consumer_groups", () ->
                String.valueOf(admin.listConsumerGroups().all().get().size()));
            probe("describe_consumer_group", () -> {
                admin.describeConsumerGroups(List.of("nope")).all().get();
                return "ok";
            });
            probe("list_transactions", () -> String.valueOf(admin.listTransactions().all().get().size()));
            probe("describe_transaction", () -> {
                admin.describeTransactions(List.of("txn-1")).all().get();
                return "ok";
            });
            probe("done", () -> "ok");
        }
    }
}
