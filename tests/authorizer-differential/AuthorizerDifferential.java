// Kafka 4.4's side of the authorizer differential: reads the cases kacl's driver
// (crates/kacl-acl/examples/authorizer_differential.rs) wrote, each with kacl's answer,
// asks Apache Kafka's own classes the same question, and counts agreements.
//
//   SET <id> <super.users> <allow.everyone.if.no.acl.found>  starts a fresh StandardAuthorizer
//   V <rt> <pt> <name> <principal> <host> <op> <perm> <kacl answer>  one ACL creation:
//       AclApis' two checks (CLUSTER name, empty name), then AclControlManager.validateNewAcl
//       (called through reflection, cidrAllowed=true); the answer is OK or "42 <message>";
//       accepted ACLs are loaded into the authorizer when the set's first query comes
//   Q <principal> <client> <op> <rt> <name> <kacl answer> <may differ>  StandardAuthorizer.authorize
//   T <principal> <client> <op> <rt> <kacl answer>   authorizeByResourceType
//
// Fields are tab-separated; "-" stands for an empty field (written as "<empty>"). A case
// marked "may differ" is the one documented difference (a LITERAL `*` ACL and a resource
// name longer than one character starting with `*`); a difference there is counted apart.
// Prints "N passed, N failed, N allowed differences"; exits 1 on any failure.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.internals.SecurityUtils;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.apache.kafka.metadata.authorizer.StandardAuthorizer;
import org.apache.kafka.server.authorizer.Action;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.authorizer.AuthorizationResult;

public class AuthorizerDifferential {
    static long passed, failed, allowedDifferences;
    static int shownFailures;

    public static void main(String[] args) throws Exception {
        Method validateNewAcl = Class.forName("org.apache.kafka.controller.AclControlManager")
            .getDeclaredMethod("validateNewAcl", AclBinding.class, boolean.class);
        validateNewAcl.setAccessible(true);

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StandardAuthorizer authorizer = null;
        Metrics metrics = null;
        String setId = "";
        Map<String, String> config = new HashMap<>();
        Map<Uuid, StandardAcl> acls = new HashMap<>();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) continue;
            String[] f = line.split("\t", -1);
            for (int i = 0; i < f.length; i++) if (f[i].equals("<empty>")) f[i] = "";
            switch (f[0]) {
                case "SET": {
                    setId = f[1];
                    config = new HashMap<>();
                    config.put("super.users", f[2]);
                    config.put("allow.everyone.if.no.acl.found", f[3]);
                    acls = new HashMap<>();
                    authorizer = null;
                    break;
                }
                case "V": {
                    AclBinding binding = new AclBinding(
                        new ResourcePattern(ResourceType.valueOf(f[1]), f[3], PatternType.valueOf(f[2])),
                        new AccessControlEntry(f[4], f[5], AclOperation.valueOf(f[6]), AclPermissionType.valueOf(f[7])));
                    String kafka = validate(validateNewAcl, binding);
                    // The controller stores an ACL once (a repeated creation succeeds, storing nothing).
                    StandardAcl acl = kafka.equals("OK") ? StandardAcl.fromAclBinding(binding) : null;
                    if (acl != null && !acls.containsValue(acl)) {
                        acls.put(Uuid.randomUuid(), acl);
                    }
                    compare(setId, line, kafka, f[8], false);
                    break;
                }
                case "Q":
                case "T": {
                    if (authorizer == null) {
                        if (metrics != null) metrics.close();
                        metrics = new Metrics();
                        authorizer = new StandardAuthorizer();
                        authorizer.configure(config);
                        authorizer.withPluginMetrics(new PluginMetricsImpl(metrics, Map.of()));
                        authorizer.loadSnapshot(acls);
                        authorizer.completeInitialLoad();
                    }
                    AuthorizableRequestContext ctx = context(f[1], f[2]);
                    AclOperation op = AclOperation.valueOf(f[3]);
                    ResourceType rt = ResourceType.valueOf(f[4]);
                    AuthorizationResult result;
                    String kacl;
                    boolean mayDiffer = false;
                    if (f[0].equals("Q")) {
                        Action action = new Action(op, new ResourcePattern(rt, f[5], PatternType.LITERAL), 1, true, true);
                        result = authorizer.authorize(ctx, List.of(action)).get(0);
                        kacl = f[6];
                        mayDiffer = f[7].equals("1");
                    } else {
                        result = authorizer.authorizeByResourceType(ctx, op, rt);
                        kacl = f[5];
                    }
                    compare(setId, line, result.name(), kacl, mayDiffer);
                    break;
                }
                default:
                    throw new IllegalArgumentException("unknown case line: " + line);
            }
        }
        System.out.println(passed + " passed, " + failed + " failed, " + allowedDifferences
            + " allowed differences (LITERAL * and names starting with *)");
        System.exit(failed == 0 ? 0 : 1);
    }

    /** AclApis.handleCreateAcls' own checks, then the controller's validateNewAcl. */
    static String validate(Method validateNewAcl, AclBinding binding) throws Exception {
        ResourcePattern pattern = binding.pattern();
        if (pattern.resourceType() == ResourceType.CLUSTER && !pattern.name().equals("kafka-cluster")) {
            return "42 The only valid name for the CLUSTER resource is kafka-cluster";
        }
        if (pattern.name().isEmpty()) {
            return "42 Invalid empty resource name";
        }
        try {
            validateNewAcl.invoke(null, binding, true);
            return "OK";
        } catch (java.lang.reflect.InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof org.apache.kafka.common.errors.ApiException) {
                short code = org.apache.kafka.common.protocol.Errors.forException(cause).code();
                return code + " " + cause.getMessage();
            }
            throw e;
        }
    }

    static void compare(String setId, String line, String kafka, String kacl, boolean mayDiffer) {
        if (kafka.equals(kacl)) {
            passed++;
        } else if (mayDiffer) {
            allowedDifferences++;
        } else {
            failed++;
            if (shownFailures++ < 30) {
                System.out.println("DIFFERENT in set " + setId + ": " + line.replace('\t', ' ')
                    + "\n    Kafka: " + kafka + "\n    kacl:  " + kacl);
            }
        }
    }

    static AuthorizableRequestContext context(String principal, String host) throws Exception {
        KafkaPrincipal kafkaPrincipal = SecurityUtils.parseKafkaPrincipal(principal);
        InetAddress address = InetAddress.getByName(host);
        return new AuthorizableRequestContext() {
            public String listenerName() { return "PLAINTEXT"; }
            public SecurityProtocol securityProtocol() { return SecurityProtocol.PLAINTEXT; }
            public KafkaPrincipal principal() { return kafkaPrincipal; }
            public InetAddress clientAddress() { return address; }
            public int requestType() { return 0; }
            public int requestVersion() { return 0; }
            public String clientId() { return "differential"; }
            public int correlationId() { return 1; }
        };
    }
}
