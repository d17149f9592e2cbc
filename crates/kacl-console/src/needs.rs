//! What each console action needs from the cluster's ACLs, so that a refusal names the
//! permission the attempted action lacks and the grant that would give it (Kafka's checks:
//! DescribeAcls needs Describe on the cluster, CreateAcls and DeleteAcls Alter on it,
//! CreateTopics Create on the cluster or the topic, DeleteTopics Delete on the topic,
//! DescribeTopics and the topic list Describe on the topic, DescribeConfigs DescribeConfigs).

/// A console action that asks the cluster something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action<'a> {
    /// Listing or reading ACLs (the ACL list, explain, who-can, a plan): DescribeAcls.
    ReadAcls,
    /// Adding or removing ACLs, applying a plan: CreateAcls / DeleteAcls.
    ChangeAcls,
    /// The cluster page: DescribeCluster.
    DescribeCluster,
    /// The topic list and a topic's page: Metadata, DescribeTopics, DescribeConfigs.
    DescribeTopic(&'a str),
    /// Creating a topic: CreateTopics.
    CreateTopic(&'a str),
    /// Deleting a topic: DeleteTopics.
    DeleteTopic(&'a str),
}

/// The permission an action needs, in kafka-acls.sh's words.
pub(crate) struct Needs<'a> {
    /// The operation (`Alter`).
    pub(crate) operation: &'static str,
    /// `None` for the cluster, else the topic.
    pub(crate) topic: Option<&'a str>,
    /// What the user tried, for the sentence (`creating and deleting ACLs`).
    pub(crate) doing: &'static str,
    /// Where else the same operation would do (`or on the cluster`).
    pub(crate) or_cluster: bool,
}

impl<'a> Action<'a> {
    /// What `self` needs.
    pub(crate) fn needs(self) -> Needs<'a> {
        let cluster = |operation, doing| Needs {
            operation,
            topic: None,
            doing,
            or_cluster: false,
        };
        let topic = |operation, name, doing, or_cluster| Needs {
            operation,
            topic: Some(name),
            doing,
            or_cluster,
        };
        match self {
            Action::ReadAcls => cluster("Describe", "reading ACLs"),
            Action::ChangeAcls => cluster("Alter", "creating and deleting ACLs"),
            Action::DescribeCluster => cluster("Describe", "describing the cluster"),
            Action::DescribeTopic(name) => topic("Describe", name, "describing a topic", false),
            Action::CreateTopic(name) => topic("Create", name, "creating a topic", true),
            Action::DeleteTopic(name) => topic("Delete", name, "deleting a topic", false),
        }
    }
}

impl Needs<'_> {
    /// "Your principal … lacks …: … needs …. Ask an administrator for `…`."
    pub(crate) fn refusal(&self, principal: &str) -> String {
        let grant = format!(
            "--allow-principal {principal} --operation {}",
            self.operation
        );
        match self.topic {
            None => format!(
                "Your principal {principal} lacks {op} on the cluster: Kafka's ACLs decide what \
                 this console may do, and {doing} needs {op} on the Cluster resource. Ask an \
                 administrator for `{grant} --cluster`.",
                op = self.operation,
                doing = self.doing,
            ),
            Some(name) => format!(
                "Your principal {principal} lacks {op} on topic {name}: Kafka's ACLs decide \
                 what this console may do, and {doing} needs {op} on the topic{or}. Ask an \
                 administrator for `{grant} --topic {name}`{also}.",
                op = self.operation,
                doing = self.doing,
                or = if self.or_cluster {
                    " or on the cluster"
                } else {
                    ""
                },
                also = if self.or_cluster {
                    " (or `--cluster` for every topic)"
                } else {
                    ""
                },
            ),
        }
    }
}
