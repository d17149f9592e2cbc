//! OAUTHBEARER at start: the validator over the identity provider's JWKS, built from
//! `sasl.oauthbearer.*` before any listener accepts a connection, so that a node without keys
//! never answers a login (Kafka's validator fails its configuration the same way).

use std::sync::Arc;

use kacl_oidc::{HttpClient, HttpUrl, JwksOptions, JwksValidator, KeySource};
use kacl_server_config::oauthbearer::{JwksLocation, OAuthBearerConfig, JWKS_URL_KEY};

use super::StartError;

/// The validator, fetched once; `None` without OAUTHBEARER configuration.
pub(super) async fn start(
    config: Option<&OAuthBearerConfig>,
) -> Result<Option<Arc<JwksValidator>>, StartError> {
    let Some(config) = config else {
        return Ok(None);
    };
    let refused = |reason: String| StartError::OAuthBearer {
        key: JWKS_URL_KEY.to_owned(),
        reason,
    };
    let source = match &config.jwks {
        JwksLocation::Url(url) => {
            KeySource::Url(HttpUrl::parse(url).map_err(|e| refused(e.to_string()))?)
        }
        JwksLocation::File(path) => KeySource::File(path.clone()),
    };
    let http = HttpClient::new(
        config.jwks_ca_file.as_deref(),
        config.jwks_max_bytes,
        config.jwks_timeout,
    )
    .map_err(|e| StartError::OAuthBearer {
        key: "kacl.oauthbearer.jwks.ssl.truststore.location".to_owned(),
        reason: e.to_string(),
    })?;
    let options = JwksOptions {
        source,
        refresh: config.jwks_refresh,
        retry_backoff: config.jwks_retry_backoff,
        retry_backoff_max: config.jwks_retry_backoff_max,
    };
    let validator = JwksValidator::start(
        config.rules.clone(),
        options,
        http,
        config.jwks_max_bytes,
        config.jwks_timeout,
    )
    .await
    .map_err(|e| refused(format!("cannot load the JWKS: {e}")))?;
    Ok(Some(validator))
}
