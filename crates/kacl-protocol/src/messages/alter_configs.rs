//! AlterConfigs (API key 33): replace the whole dynamic configuration of each resource (the
//! legacy API; IncrementalAlterConfigs changes single keys). v1 is v0 with the response sent
//! before throttling; v2 is the first flexible version.

use std::borrow::Cow;

kafka_message! {
    /// The new configuration of each resource.
    pub struct AlterConfigsRequest<'a> {
        api_key: AlterConfigs, versions: 0-2, flexible: 2+;
        /// The updates for each resource.
        resources: Vec<AlterConfigsResource<'a>> [versions 0+],
        /// True if we should validate the request, but not change the configurations.
        validate_only: bool [versions 0+],
    }

    /// One resource and its complete new configuration.
    pub struct AlterConfigsResource<'a> {
        /// The resource type.
        resource_type: i8 [versions 0+],
        /// The resource name.
        resource_name: Cow<'a, str> [versions 0+],
        /// The configurations: every key not listed returns to its default.
        configs: Vec<AlterableConfig<'a>> [versions 0+],
    }

    /// One key and its value.
    pub struct AlterableConfig<'a> {
        /// The configuration key name.
        name: Cow<'a, str> [versions 0+],
        /// The value to set for the configuration key, or null.
        value: Option<Cow<'a, str>> [versions 0+, nullable 0+],
    }
}

kafka_message! {
    /// One result per resource.
    pub struct AlterConfigsResponse<'a> {
        api_key: AlterConfigs, versions: 0-2, flexible: 2+;
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
