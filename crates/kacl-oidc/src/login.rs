//! OpenID Connect sign-in for a person at a browser (the console's single sign-on): the
//! authorization code flow (RFC 6749 4.1) with PKCE S256 (RFC 7636), as a confidential or a
//! public client.
//!
//! 1. [`Provider::discover`] reads `<issuer>/.well-known/openid-configuration` once; its
//!    `issuer` must be the configured one (OpenID Connect Discovery 4.3), so a document served
//!    from elsewhere cannot redirect the login.
//! 2. [`Provider::begin`] makes a fresh `state`, `nonce` and PKCE verifier and the URL to send
//!    the browser to; the caller keeps the [`PendingLogin`] (server-side, keyed by `state`).
//! 3. [`Provider::finish`] trades the code the browser brought back for the tokens, proving
//!    the verifier. The access token is what the console then presents to the cluster with
//!    SASL/OAUTHBEARER; the cluster validates it against the provider's JWKS (the console
//!    does not have to trust it, nor ever see a password).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::RngCore;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::http::{form_encode, HttpClient};
use super::url::HttpUrl;
use super::OidcError;

/// An OpenID provider's endpoints, as discovered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provider {
    /// The issuer identifier.
    pub issuer: String,
    /// Where the browser signs in.
    pub authorization_endpoint: String,
    /// Where codes become tokens.
    pub token_endpoint: HttpUrl,
}

/// The console's registration at the provider.
#[derive(Clone, PartialEq, Eq)]
pub struct Client {
    /// `client_id`.
    pub id: String,
    /// `client_secret` (sent with HTTP Basic); `None` for a public client (PKCE alone).
    pub secret: Option<String>,
    /// The `redirect_uri` registered for the console (its `/sso/callback`).
    pub redirect_uri: String,
    /// The scopes asked for (`openid` is always among them).
    pub scope: String,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("id", &self.id)
            .field("secret", &self.secret.as_ref().map(|_| "<redacted>"))
            .field("redirect_uri", &self.redirect_uri)
            .field("scope", &self.scope)
            .finish()
    }
}

/// A login in progress: what the callback must match.
#[derive(Clone, PartialEq, Eq)]
pub struct PendingLogin {
    /// The `state` sent (and expected back).
    pub state: String,
    /// The PKCE `code_verifier`.
    pub verifier: String,
    /// The `nonce` sent.
    pub nonce: String,
    /// The URL to redirect the browser to.
    pub authorize_url: String,
}

impl std::fmt::Debug for PendingLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingLogin").finish_non_exhaustive()
    }
}

/// What the token endpoint answered.
#[derive(Clone, PartialEq, Eq)]
pub struct Tokens {
    /// The access token (a JWT the cluster validates).
    pub access_token: String,
    /// The ID token, if any.
    pub id_token: Option<String>,
    /// `expires_in`, seconds.
    pub expires_in: Option<u64>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("expires_in", &self.expires_in)
            .finish_non_exhaustive()
    }
}

fn random_token(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buf);
    URL_SAFE_NO_PAD.encode(buf)
}

/// RFC 7636 4.2: `BASE64URL(SHA256(verifier))`.
pub fn pkce_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

fn text_field(doc: &Value, name: &str) -> Result<String, OidcError> {
    doc.get(name)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| OidcError::Discovery(format!("the configuration has no `{name}`")))
}

impl Provider {
    /// Reads the provider's configuration document.
    pub async fn discover(http: &HttpClient, issuer: &str) -> Result<Provider, OidcError> {
        let issuer = issuer.trim_end_matches('/');
        let url = HttpUrl::parse(&format!("{issuer}/.well-known/openid-configuration"))?;
        let response = http.get(&url).await?;
        if response.status != 200 {
            return Err(OidcError::Discovery(format!(
                "{url}: status {}",
                response.status
            )));
        }
        let doc: Value = serde_json::from_slice(&response.body)
            .map_err(|e| OidcError::Discovery(format!("{url}: {e}")))?;
        let found = text_field(&doc, "issuer")?;
        if found.trim_end_matches('/') != issuer {
            return Err(OidcError::Discovery(format!(
                "the configuration names issuer `{found}`, not `{issuer}`"
            )));
        }
        if let Some(methods) = doc
            .get("code_challenge_methods_supported")
            .and_then(Value::as_array)
        {
            if !methods.iter().any(|m| m.as_str() == Some("S256")) {
                return Err(OidcError::Discovery(
                    "the provider does not offer PKCE S256".into(),
                ));
            }
        }
        let authorization_endpoint = text_field(&doc, "authorization_endpoint")?;
        HttpUrl::parse(&authorization_endpoint)?;
        let token_endpoint = HttpUrl::parse(&text_field(&doc, "token_endpoint")?)?;
        Ok(Provider {
            issuer: found,
            authorization_endpoint,
            token_endpoint,
        })
    }

    /// A new login: where to send the browser, and what to remember until it comes back.
    pub fn begin(&self, client: &Client) -> PendingLogin {
        let state = random_token(24);
        let verifier = random_token(48);
        let nonce = random_token(16);
        let query = form_encode(&[
            ("response_type", "code"),
            ("client_id", &client.id),
            ("redirect_uri", &client.redirect_uri),
            ("scope", &client.scope),
            ("state", &state),
            ("nonce", &nonce),
            ("code_challenge", &pkce_challenge(&verifier)),
            ("code_challenge_method", "S256"),
        ]);
        let separator = if self.authorization_endpoint.contains('?') {
            '&'
        } else {
            '?'
        };
        PendingLogin {
            authorize_url: format!("{}{separator}{query}", self.authorization_endpoint),
            state,
            verifier,
            nonce,
        }
    }

    /// Trades `code` for tokens.
    pub async fn finish(
        &self,
        http: &HttpClient,
        client: &Client,
        pending: &PendingLogin,
        code: &str,
    ) -> Result<Tokens, OidcError> {
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", client.redirect_uri.as_str()),
            ("code_verifier", pending.verifier.as_str()),
        ];
        if client.secret.is_none() {
            form.push(("client_id", client.id.as_str()));
        }
        let basic = client.secret.as_deref().map(|s| (client.id.as_str(), s));
        let response = http.post_form(&self.token_endpoint, &form, basic).await?;
        let doc: Value = serde_json::from_slice(&response.body).unwrap_or(Value::Null);
        if response.status != 200 {
            let error = doc.get("error").and_then(Value::as_str).unwrap_or("?");
            let detail = doc
                .get("error_description")
                .and_then(Value::as_str)
                .unwrap_or("");
            return Err(OidcError::Token(format!(
                "status {}: {error} {detail}",
                response.status
            )));
        }
        let access_token = doc
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| OidcError::Token("no access_token in the answer".into()))?
            .to_owned();
        Ok(Tokens {
            access_token,
            id_token: doc
                .get("id_token")
                .and_then(Value::as_str)
                .map(str::to_owned),
            expires_in: doc.get("expires_in").and_then(Value::as_u64),
        })
    }
}

/// The claims of a JWT, read without verifying it: for display only (the principal's name,
/// the expiry) — the cluster verifies the token it is handed.
pub fn unverified_claims(token: &str) -> Option<serde_json::Map<String, Value>> {
    let payload = token.split('.').nth(1)?;
    let bytes = URL_SAFE_NO_PAD.decode(payload).ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_matches_rfc_7636_appendix_b() {
        assert_eq!(
            pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn a_login_url_carries_the_flow() {
        let provider = Provider {
            issuer: "http://idp".into(),
            authorization_endpoint: "http://idp/authorize".into(),
            token_endpoint: HttpUrl::parse("http://idp/token").unwrap(),
        };
        let client = Client {
            id: "console".into(),
            secret: None,
            redirect_uri: "http://127.0.0.1:8080/sso/callback".into(),
            scope: "openid kafka".into(),
        };
        let a = provider.begin(&client);
        let b = provider.begin(&client);
        assert_ne!(a.state, b.state);
        assert_ne!(a.verifier, b.verifier);
        assert!(a.verifier.len() >= 43, "RFC 7636 4.1: 43 to 128 characters");
        assert!(a
            .authorize_url
            .starts_with("http://idp/authorize?response_type=code&"));
        assert!(a.authorize_url.contains("code_challenge_method=S256"));
        assert!(a
            .authorize_url
            .contains(&format!("code_challenge={}", pkce_challenge(&a.verifier))));
        assert!(a
            .authorize_url
            .contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2Fsso%2Fcallback"));
        assert!(!a.authorize_url.contains(&a.verifier));
    }

    #[test]
    fn claims_for_display() {
        let claims = URL_SAFE_NO_PAD.encode(br#"{"sub":"carol","exp":5}"#);
        let token = format!("e30.{claims}.sig");
        assert_eq!(unverified_claims(&token).unwrap()["sub"], "carol");
        assert!(unverified_claims("nonsense").is_none());
    }
}
