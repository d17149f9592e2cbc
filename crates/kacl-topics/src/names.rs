//! Topic names: Kafka's legality rules (`Topic.validate`), the `.`/`_` collision rule the
//! controller enforces against existing topics, and the internal topic names.

use super::TopicError;

/// Longest legal name, counted as Java counts (`String.length()`, UTF-16 units).
pub const MAX_TOPIC_NAME_LENGTH: usize = 249;
/// The consumer group offsets topic; internal.
pub const GROUP_METADATA_TOPIC_NAME: &str = "__consumer_offsets";
/// The transaction coordinator's log; internal.
pub const TRANSACTION_STATE_TOPIC_NAME: &str = "__transaction_state";
/// The share group state topic (KIP-932); internal in Kafka 4.x.
pub const SHARE_GROUP_STATE_TOPIC_NAME: &str = "__share_group_state";
/// KRaft's metadata log. Not "internal" in Metadata's sense, and `ControllerApis` refuses
/// to create it: INVALID_REQUEST `Creation of internal topic __cluster_metadata is prohibited.`
pub const CLUSTER_METADATA_TOPIC_NAME: &str = "__cluster_metadata";

/// Kafka's `Topic.isInternal`: what Metadata reports as `is_internal`.
pub fn is_internal(name: &str) -> bool {
    matches!(
        name,
        GROUP_METADATA_TOPIC_NAME | TRANSACTION_STATE_TOPIC_NAME | SHARE_GROUP_STATE_TOPIC_NAME
    )
}

/// Kafka's `Topic.validate`, in Kafka's order and with Kafka's messages
/// (INVALID_TOPIC_EXCEPTION).
pub fn validate_topic_name(name: &str) -> Result<(), TopicError> {
    let reason = if name.is_empty() {
        "the empty string is not allowed".to_owned()
    } else if name == "." {
        "'.' is not allowed".to_owned()
    } else if name == ".." {
        "'..' is not allowed".to_owned()
    } else if name.encode_utf16().count() > MAX_TOPIC_NAME_LENGTH {
        // Java measures UTF-16 units, so a long name of non-ASCII letters can fail here
        // or fall through to the character rule exactly as it does in Kafka.
        format!(
            "the length of '{name}' is longer than the max allowed length {MAX_TOPIC_NAME_LENGTH}"
        )
    } else if !name.bytes().all(is_legal_byte) {
        format!(
            "'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
        )
    } else {
        return Ok(());
    };
    Err(TopicError::InvalidTopic(format!(
        "Topic name is invalid: {reason}"
    )))
}

fn is_legal_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'.' || byte == b'_' || byte == b'-'
}

/// Kafka's `Topic.hasCollisionChars`: names with `.` or `_` may collide in metric names.
pub fn has_collision_chars(name: &str) -> bool {
    name.contains(['.', '_'])
}

/// Kafka's `Topic.unifyCollisionChars`: the form two colliding names share (`.` → `_`).
pub fn unify_collision_chars(name: &str) -> String {
    name.replace('.', "_")
}

/// Kafka's `Topic.hasCollision`: the names differ at most by `.` versus `_`.
pub fn has_collision(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .all(|(x, y)| x == y || (matches!(x, b'.' | b'_') && matches!(y, b'.' | b'_')))
}

/// The existing topic a new name collides with, as the controller finds it: only names
/// with collision characters are checked, and the name itself does not count (that case
/// is TOPIC_ALREADY_EXISTS). With several candidates (possible only for topics created
/// before KAFKA-13743) Kafka reports an arbitrary one; this returns the first.
pub fn find_collision<'a, I>(name: &str, existing: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    if !has_collision_chars(name) {
        return None;
    }
    existing
        .into_iter()
        .find(|other| *other != name && has_collision(name, other))
}

/// Every check `ReplicationControlManager.createTopics` makes on a new topic's name, with
/// Kafka's precedence: an existing topic of that exact name wins (TOPIC_ALREADY_EXISTS),
/// then a collision with another existing topic, then the legality rules (both
/// INVALID_TOPIC_EXCEPTION).
pub fn check_new_topic_name(
    name: &str,
    already_exists: bool,
    collides_with: Option<&str>,
) -> Result<(), TopicError> {
    if already_exists {
        return Err(TopicError::already_exists(name));
    }
    if let Some(existing) = collides_with {
        return Err(TopicError::InvalidTopic(format!(
            "Topic '{name}' collides with existing topic: {existing}"
        )));
    }
    validate_topic_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invalid(name: &str) -> String {
        match validate_topic_name(name) {
            Err(TopicError::InvalidTopic(message)) => message,
            other => panic!("expected INVALID_TOPIC_EXCEPTION for {name:?}, got {other:?}"),
        }
    }

    #[test]
    fn legal_names_pass() {
        let longest = "a".repeat(249);
        for name in [
            "orders",
            "a",
            "A-z_0.9",
            "...",
            "_",
            "-",
            "__consumer_offsets",
            &longest,
        ] {
            assert_eq!(validate_topic_name(name), Ok(()), "{name:?}");
        }
    }

    #[test]
    fn empty_dot_and_dot_dot_have_their_own_messages() {
        assert_eq!(
            invalid(""),
            "Topic name is invalid: the empty string is not allowed"
        );
        assert_eq!(invalid("."), "Topic name is invalid: '.' is not allowed");
        assert_eq!(invalid(".."), "Topic name is invalid: '..' is not allowed");
    }

    #[test]
    fn length_is_checked_before_characters() {
        let long = "a".repeat(250);
        assert_eq!(
            invalid(&long),
            format!("Topic name is invalid: the length of '{long}' is longer than the max allowed length 249")
        );
        let long_and_bad = format!("{}!", "a".repeat(249));
        assert!(invalid(&long_and_bad).contains("is longer than the max allowed length 249"));
    }

    #[test]
    fn length_counts_utf16_units_like_java() {
        // 200 'é' are 400 UTF-8 bytes but 200 UTF-16 units: the character rule fires.
        let accented = "é".repeat(200);
        assert!(invalid(&accented).ends_with(
            "contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
        ));
        // 125 emoji are 250 UTF-16 units: the length rule fires.
        let emoji = "😀".repeat(125);
        assert!(invalid(&emoji).contains("is longer than the max allowed length 249"));
    }

    #[test]
    fn illegal_characters_are_named_in_the_message() {
        for name in ["bad name", "a/b", "a:b", "tab\t", "naïve", "a+b", "a*"] {
            assert_eq!(
                invalid(name),
                format!(
                    "Topic name is invalid: '{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
                )
            );
        }
    }

    #[test]
    fn exactly_the_legal_ascii_characters_pass() {
        for byte in 0u8..=127 {
            let name = format!("a{}b", char::from(byte));
            let legal = byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-');
            assert_eq!(validate_topic_name(&name).is_ok(), legal, "{name:?}");
        }
    }

    #[test]
    fn internal_topics_are_kafkas() {
        assert!(is_internal("__consumer_offsets"));
        assert!(is_internal("__transaction_state"));
        assert!(is_internal("__share_group_state"));
        assert!(!is_internal("__cluster_metadata"));
        assert!(!is_internal("consumer_offsets"));
        assert!(!is_internal("orders"));
    }

    #[test]
    fn collision_rules() {
        assert!(has_collision_chars("a.b"));
        assert!(has_collision_chars("a_b"));
        assert!(!has_collision_chars("a-b"));
        assert_eq!(unify_collision_chars("a.b_c.d"), "a_b_c_d");
        assert!(has_collision("a.b", "a_b"));
        assert!(has_collision("a.b", "a.b"));
        assert!(has_collision("x._", "x_."));
        assert!(!has_collision("a.b", "a-b"));
        assert!(!has_collision("a.b", "a.bc"));
        assert!(!has_collision("ab", "a_b"));
    }

    #[test]
    fn find_collision_skips_the_same_name_and_plain_names() {
        let existing = ["a_b", "c.d", "plain"];
        assert_eq!(find_collision("a.b", existing), Some("a_b"));
        assert_eq!(find_collision("c_d", existing), Some("c.d"));
        assert_eq!(find_collision("a_b", existing), None);
        assert_eq!(find_collision("plain", existing), None);
        assert_eq!(find_collision("e.f", existing), None);
    }

    #[test]
    fn new_name_precedence_is_kafkas() {
        assert_eq!(
            check_new_topic_name("a.b", true, Some("a_b")),
            Err(TopicError::TopicAlreadyExists(
                "Topic 'a.b' already exists.".into()
            ))
        );
        assert_eq!(
            check_new_topic_name("a.b", false, Some("a_b")),
            Err(TopicError::InvalidTopic(
                "Topic 'a.b' collides with existing topic: a_b".into()
            ))
        );
        assert_eq!(
            check_new_topic_name("..", false, None),
            Err(TopicError::InvalidTopic(
                "Topic name is invalid: '..' is not allowed".into()
            ))
        );
        assert_eq!(check_new_topic_name("a.b", false, None), Ok(()));
    }
}
