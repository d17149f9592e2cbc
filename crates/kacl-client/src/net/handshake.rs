//! What happens on a new connection before any admin request: ApiVersions (KIP-511 fallback
//! included) and, on SASL listeners, SaslHandshake v1 plus SaslAuthenticate rounds.

use kacl_protocol::messages::api_versions::{ApiVersionsRequest, ApiVersionsResponse};
use kacl_protocol::messages::sasl_authenticate::{
    SaslAuthenticateRequest, SaslAuthenticateResponse,
};
use kacl_protocol::messages::sasl_handshake::{SaslHandshakeRequest, SaslHandshakeResponse};
use std::time::Duration;

use kacl_protocol::{ApiKey, ErrorCode, Message, VersionRange};

use kacl_sasl::plain::client_token;
use kacl_sasl::scram::{ScramClient, ScramClientError};
use kacl_sasl::SaslMechanism;

use crate::config::SaslConfig;
use crate::error::AdminError;
use crate::net::connection::Connection;
use crate::net::versions::ApiVersionsTable;

/// The ApiVersions version a client opens with: v3 is the first that carries the client's
/// software name and version (KIP-511), and every broker since Kafka 2.4 answers it.
pub const FIRST_API_VERSIONS_VERSION: i16 = 3;

/// How this client introduces itself in ApiVersions v3+.
const SOFTWARE_NAME: &str = "kacl-client";

/// Asks the broker which versions it speaks. A broker that does not know our ApiVersions
/// version answers UNSUPPORTED_VERSION with a v0 body listing its own range (KIP-511); we then
/// retry at the highest version both sides speak, down to v0.
pub async fn negotiate_versions(conn: &Connection) -> Result<ApiVersionsTable, AdminError> {
    let mut version = FIRST_API_VERSIONS_VERSION;
    // At most one retry at the broker's version, then one at v0.
    for _ in 0..3 {
        let request = ApiVersionsRequest {
            client_software_name: SOFTWARE_NAME.into(),
            client_software_version: env!("CARGO_PKG_VERSION").into(),
            ..Default::default()
        };
        let response = conn.send(version, &request).await?;
        // The body (after response header v0) starts with the error code in every version.
        let error = response
            .after_correlation_id()
            .first_chunk::<2>()
            .map(|b| i16::from_be_bytes(*b))
            .ok_or_else(|| AdminError::decode("empty ApiVersions response"))?;
        if error == ErrorCode::UnsupportedVersion.code() {
            if version == 0 {
                break;
            }
            // KIP-511's answer is a v0 body; some brokers (librdkafka's mock cluster) write it
            // in the request's own version instead. Like Kafka's Java client, read it at v0
            // and, failing that, at the version sent.
            let body: ApiVersionsResponse = match decode_as(&response, 0) {
                Ok(body) => body,
                Err(v0_error) => decode_as(&response, version).map_err(|_| v0_error)?,
            };
            let table = ApiVersionsTable::from_response(&body);
            // A broker that lists no ApiVersions range (pre-KIP-511) still speaks v0.
            version = table
                .pick(ApiKey::ApiVersions, VersionRange::between(0, version - 1))
                .unwrap_or(0);
            continue;
        }
        let body: ApiVersionsResponse = response.decode()?;
        AdminError::check(body.error_code, None)?;
        return Ok(ApiVersionsTable::from_response(&body));
    }
    Err(AdminError::UnsupportedVersion {
        api: ApiKey::ApiVersions,
        detail: "the broker refused every ApiVersions version".into(),
    })
}

/// Decodes an ApiVersions response at `version` whatever version the request had (the
/// UNSUPPORTED_VERSION answer is always a v0 body).
fn decode_as<'p>(
    response: &'p crate::net::connection::Response,
    version: i16,
) -> Result<ApiVersionsResponse<'p>, AdminError> {
    let mut r = kacl_protocol::Reader::new(response.after_correlation_id());
    ApiVersionsResponse::decode(&mut r, version)
        .map_err(|e| AdminError::decode(format!("ApiVersions v{version}: {e}")))
}

/// Authenticates with SaslHandshake v1 and SaslAuthenticate, as Kafka clients since 1.0 do.
/// Returns the session lifetime the broker granted (KIP-368's `session_lifetime_ms`), if any:
/// past it the broker closes the connection on its next request.
pub async fn authenticate(
    conn: &Connection,
    versions: &ApiVersionsTable,
    sasl: &SaslConfig,
) -> Result<Option<Duration>, AdminError> {
    let handshake_version = versions.pick(
        ApiKey::SaslHandshake,
        VersionRange::between(1, SaslHandshakeRequest::VERSIONS.max),
    )?;
    let mechanism = sasl.mechanism.name();
    let response = conn
        .send(
            handshake_version,
            &SaslHandshakeRequest {
                mechanism: mechanism.into(),
                ..Default::default()
            },
        )
        .await?;
    let body: SaslHandshakeResponse = response.decode()?;
    if body.error_code == ErrorCode::UnsupportedSaslMechanism.code() {
        let enabled: Vec<&str> = body.mechanisms.iter().map(|m| m.as_ref()).collect();
        return Err(AdminError::server(
            ErrorCode::UnsupportedSaslMechanism,
            Some(&format!(
                "Client SASL mechanism '{mechanism}' not enabled in the server, enabled \
                 mechanisms are [{}]",
                enabled.join(", ")
            )),
        ));
    }
    AdminError::check(body.error_code, None)?;

    let auth_version =
        versions.pick(ApiKey::SaslAuthenticate, SaslAuthenticateRequest::VERSIONS)?;
    let last = match sasl.mechanism.scram() {
        None if sasl.mechanism == SaslMechanism::OAuthBearer => {
            let token = kacl_sasl::oauthbearer::client_token(&sasl.password);
            let (reply, lifetime) = authenticate_round(conn, auth_version, token).await?;
            if !reply.is_empty() {
                // RFC 7628 3.2.2: the server's error (Kafka: `{"status":"invalid_token"}`);
                // the client acknowledges with a single 0x01 and the server then fails the
                // exchange with its message.
                authenticate_round(conn, auth_version, vec![0x01]).await?;
                return Err(AdminError::Authentication(format!(
                    "OAUTHBEARER: the broker refused the token: {}",
                    String::from_utf8_lossy(&reply)
                )));
            }
            (reply, lifetime)
        }
        None => {
            // An empty authzid, as Kafka's Java client and librdkafka send it.
            let token = client_token("", &sasl.username, &sasl.password);
            authenticate_round(conn, auth_version, token).await?
        }
        Some(scram) => {
            let mut client = ScramClient::new(scram, &sasl.username, &sasl.password);
            let client_first = client.client_first().map_err(scram_failed)?;
            let (server_first, _) = authenticate_round(conn, auth_version, client_first).await?;
            let client_final = client
                .handle_server_first(&server_first)
                .map_err(scram_failed)?;
            let last = authenticate_round(conn, auth_version, client_final).await?;
            client.handle_server_final(&last.0).map_err(scram_failed)?;
            last
        }
    };
    let lifetime_ms = u64::try_from(last.1).unwrap_or(0);
    Ok((lifetime_ms > 0).then(|| Duration::from_millis(lifetime_ms)))
}

/// A SCRAM exchange the client gave up on: the server's messages were malformed, weak, or
/// proved that it does not know the credential.
fn scram_failed(error: ScramClientError) -> AdminError {
    AdminError::Authentication(format!("SCRAM: {error}"))
}

/// Sends one SASL token and returns the server's with the session lifetime it states (0
/// until the exchange completes), or the server's refusal.
async fn authenticate_round(
    conn: &Connection,
    version: i16,
    token: Vec<u8>,
) -> Result<(Vec<u8>, i64), AdminError> {
    let request = SaslAuthenticateRequest {
        auth_bytes: token.into(),
        ..Default::default()
    };
    let response = conn.send(version, &request).await?;
    let body: SaslAuthenticateResponse = response.decode()?;
    AdminError::check(body.error_code, body.error_message.as_deref())?;
    Ok((body.auth_bytes.into_owned(), body.session_lifetime_ms))
}
