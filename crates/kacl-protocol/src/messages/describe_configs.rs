//! DescribeConfigs (API key 32): the configuration of topics, brokers and broker loggers.
//!
//! v1 adds `include_synonyms`, each entry's `config_source` and its synonyms (and drops v0's
//! `is_default`); v2 is v1 with the response sent before throttling; v3 adds
//! `include_documentation` and each entry's `config_type` and `documentation`; v4 is the first
//! flexible version. Kafka 4 removed v0; it is declared and served for old clients.

use std::borrow::Cow;

kafka_message! {
    /// The resources whose configuration to describe.
    pub struct DescribeConfigsRequest<'a> {
        api_key: DescribeConfigs, versions: 0-4, flexible: 4+;
        /// The resources whose configurations we want to describe.
        resources: Vec<DescribeConfigsResource<'a>> [versions 0+],
        /// True if we should include all synonyms (v1+; not ignorable, as in Kafka).
        include_synonyms: bool [versions 1+, default false],
        /// True if we should include configuration documentation (v3+; not ignorable).
        include_documentation: bool [versions 3+, default false],
    }

    /// One resource to describe.
    pub struct DescribeConfigsResource<'a> {
        /// The resource type: 2 = TOPIC, 4 = BROKER, 8 = BROKER_LOGGER.
        resource_type: i8 [versions 0+],
        /// The resource name (a broker's id in decimal, "" for the cluster-wide default).
        resource_name: Cow<'a, str> [versions 0+],
        /// The configuration keys to list, or null to list all of them.
        configuration_keys: Option<Vec<Cow<'a, str>>> [versions 0+, nullable 0+],
    }
}

kafka_message! {
    /// One result per described resource.
    pub struct DescribeConfigsResponse<'a> {
        api_key: DescribeConfigs, versions: 0-4, flexible: 4+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The results for each resource.
        results: Vec<DescribeConfigsResult<'a>> [versions 0+],
    }

    /// The configuration of one resource, or why it could not be described.
    pub struct DescribeConfigsResult<'a> {
        /// The error code, or 0 if the configuration was described.
        error_code: i16 [versions 0+],
        /// The error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The resource type.
        resource_type: i8 [versions 0+],
        /// The resource name.
        resource_name: Cow<'a, str> [versions 0+],
        /// Each listed configuration.
        configs: Vec<DescribeConfigsResourceResult<'a>> [versions 0+],
    }

    /// One configuration entry.
    pub struct DescribeConfigsResourceResult<'a> {
        /// The configuration name.
        name: Cow<'a, str> [versions 0+],
        /// The configuration value, null for sensitive entries and unset values.
        value: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// True if the configuration is read-only.
        read_only: bool [versions 0+],
        /// True if the configuration is not set (v0 only). Not ignorable in Kafka's schema: a
        /// responder sets it only when answering v0.
        is_default: bool [versions 0-0],
        /// The configuration source (v1+): 1 TOPIC_CONFIG, 2 DYNAMIC_BROKER_CONFIG,
        /// 3 DYNAMIC_DEFAULT_BROKER_CONFIG, 4 STATIC_BROKER_CONFIG, 5 DEFAULT_CONFIG,
        /// 6 DYNAMIC_BROKER_LOGGER_CONFIG, 0 UNKNOWN.
        config_source: i8 [versions 1+, ignorable, default -1],
        /// True if this configuration is sensitive (its value is then null).
        is_sensitive: bool [versions 0+],
        /// The synonyms of this configuration key, in precedence order (v1+).
        synonyms: Vec<DescribeConfigsSynonym<'a>> [versions 1+, ignorable],
        /// The data type (v3+): 1 BOOLEAN, 2 STRING, 3 INT, 4 SHORT, 5 LONG, 6 DOUBLE, 7 LIST,
        /// 8 CLASS, 9 PASSWORD; 0 unknown.
        config_type: i8 [versions 3+, ignorable, default 0],
        /// The documentation (v3+), or null. Defaults to "" as in Kafka's generated code, which
        /// is what a v0-2 response decodes to.
        documentation: Option<Cow<'a, str>> [versions 3+, nullable 0+, ignorable,
            default Some(Cow::Borrowed(""))],
    }

    /// One synonym of a configuration entry: a key that sets the same value at another level.
    pub struct DescribeConfigsSynonym<'a> {
        /// The synonym name.
        name: Cow<'a, str> [versions 1+],
        /// The synonym value, or null.
        value: Option<Cow<'a, str>> [versions 1+, nullable 0+],
        /// The synonym source.
        source: i8 [versions 1+],
    }
}
