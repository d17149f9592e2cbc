//! ApiVersions (18), v0-4: every API this server routes with the versions it serves. Served
//! before authentication, because clients send it first.
//!
//! A version kacl does not serve gets UNSUPPORTED_VERSION in a v0 body (KIP-511), so the client
//! can parse it whatever version it sent and retry with one in range. Kafka lists only the
//! ApiVersions range in that answer; kacl lists every range it serves (a superset clients
//! read the same way).

use kacl_protocol::messages::api_versions::{ApiVersion, ApiVersionsRequest, ApiVersionsResponse};
use kacl_protocol::{ApiKey, ApiRole, ErrorCode};

use super::SessionHandler;
use crate::context::SessionContext;
use crate::forward::{answered_locally, Forwarder};
use crate::outcome::Outcome;

/// The served APIs and their version ranges. On a gateway node: kacl's own APIs at kacl's
/// ranges, and every forwarded API the gateway offers at the intersection of the upstream's
/// range and what the gateway can authorize; an upstream API the gateway does not know (a
/// newer or vendor key) is never listed.
fn served_ranges(forwarder: Option<&dyn Forwarder>) -> Vec<ApiVersion<'static>> {
    let range = |api: ApiKey| match forwarder {
        Some(forwarder) if !answered_locally(api, true) => forwarder.offered_versions(api),
        _ if api.role() == ApiRole::ForwardedOnly => None,
        _ => Some(api.versions()),
    };
    ApiKey::KNOWN
        .iter()
        .filter_map(|api| {
            range(*api).map(|versions| ApiVersion {
                api_key: api.key(),
                min_version: versions.min,
                max_version: versions.max,
                unknown_tagged_fields: Default::default(),
            })
        })
        .collect()
}

/// The answer to an ApiVersions request of a version kacl does not serve.
pub fn unsupported_version(correlation_id: i32, forwarder: Option<&dyn Forwarder>) -> Outcome {
    let body = ApiVersionsResponse {
        error_code: ErrorCode::UnsupportedVersion.code(),
        api_keys: served_ranges(forwarder),
        ..Default::default()
    };
    Outcome::response(correlation_id, 0, &body)
}

/// Kafka's rule for `client_software_name` and `client_software_version` (v3+): letters,
/// digits, `-` and `.`, starting and ending with a letter or digit.
fn valid_software_field(value: &str) -> bool {
    let bytes = value.as_bytes();
    let edge_ok = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_alphanumeric());
    edge_ok(bytes.first())
        && edge_ok(bytes.last())
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'.')
}

/// ApiVersions: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct ApiVersions;

impl SessionHandler for ApiVersions {
    type Request<'r> = ApiVersionsRequest<'r>;
    type Response<'r> = ApiVersionsResponse<'r>;

    /// Answers a served ApiVersions version.
    async fn handle<'r>(
        ctx: SessionContext<'r>,
        request: ApiVersionsRequest<'r>,
    ) -> Result<ApiVersionsResponse<'r>, Outcome> {
        Ok(answer(
            ctx.version,
            &request,
            ctx.state.forwarder.as_deref(),
        ))
    }
}

/// The pure step: the answer to a served version from this node's table (and, on a gateway
/// node, the forwarder's offer).
fn answer(
    version: i16,
    request: &ApiVersionsRequest<'_>,
    forwarder: Option<&dyn Forwarder>,
) -> ApiVersionsResponse<'static> {
    if version >= 3
        && !(valid_software_field(&request.client_software_name)
            && valid_software_field(&request.client_software_version))
    {
        // As Kafka: INVALID_REQUEST without the API list.
        return ApiVersionsResponse {
            error_code: ErrorCode::InvalidRequest.code(),
            ..Default::default()
        };
    }
    ApiVersionsResponse {
        error_code: 0,
        api_keys: served_ranges(forwarder),
        throttle_time_ms: 0,
        supported_features: Vec::new(),
        finalized_features_epoch: -1,
        finalized_features: Vec::new(),
        zk_migration_ready: false,
        unknown_tagged_fields: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn software_fields_follow_kafkas_pattern() {
        for ok in [
            "librdkafka",
            "2.16.0",
            "a",
            "confluent-kafka-python",
            "2.16.1-rdkafka-2.16.0",
        ] {
            assert!(valid_software_field(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a b", "a_b", ".x"] {
            assert!(!valid_software_field(bad), "{bad}");
        }
    }
}
