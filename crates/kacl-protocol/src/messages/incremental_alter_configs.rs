//! IncrementalAlterConfigs (API key 44, KIP-339): set, delete, append to or subtract from
//! single configuration keys of each resource. v1 is the first flexible version.

use std::borrow::Cow;

kafka_message! {
    /// The changes for each resource.
    pub struct IncrementalAlterConfigsRequest<'a> {
        api_key: IncrementalAlterConfigs, versions: 0-1, flexible: 1+;
        /// The incremental updates for each resource.
        resources: Vec<AlterConfigsResource<'a>> [versions 0+],
        /// True if we should validate the request, but not change the configurations.
        validate_only: bool [versions 0+],
    }

    /// One resource and the changes to its configuration.
    pub struct AlterConfigsResource<'a> {
        /// The resource type.
        resource_type: i8 [versions 0+],
        /// The resource name.
        resource_name: Cow<'a, str> [versions 0+],
        /// The changes, applied in order.
        configs: Vec<AlterableConfig<'a>> [versions 0+],
    }

    /// One change to one key.
    pub struct AlterableConfig<'a> {
        /// The configuration key name.
        name: Cow<'a, str> [versions 0+],
        /// The operation: 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT.
        config_operation: i8 [versions 0+],
        /// The value of the operation, or null (DELETE ignores it).
        value: Option<Cow<'a, str>> [versions 0+, nullable 0+],
    }
}

kafka_message! {
    /// One result per resource.
    pub struct IncrementalAlterConfigsResponse<'a> {
        api_key: IncrementalAlterConfigs, versions: 0-1, flexible: 1+;
        /// Time the request was throttled for a quota violation, or zero.
        throttle_time_ms: i32 [versions 0+],
        /// The responses for each resource.
        responses: Vec<AlterConfigsResourceResponse<'a>> [versions 0+],
    }

    /// The outcome for one resource.
    pub struct AlterConfigsResourceResponse<'a> {
        /// The resource error code, or 0.
        error_code: i16 [versions 0+],
        /// The resource error message, or null if there was no error.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The resource type.
        resource_type: i8 [versions 0+],
        /// The resource name.
        resource_name: Cow<'a, str> [versions 0+],
    }
}
