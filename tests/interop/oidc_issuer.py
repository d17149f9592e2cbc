"""A small, real OpenID Connect provider for the interop and console tests.

It signs real JWTs with keys generated at start (RSA 2048 for RS256, EC P-256 for ES256)
with the `cryptography` package, and serves what clients and kacl use:

- `GET /.well-known/openid-configuration`: discovery (RFC 8414 / OpenID Discovery);
- `GET /jwks`: the public keys (counted in `jwks_fetches`);
- `POST /token`: `client_credentials` (client id and secret by HTTP Basic or in the form,
  RFC 6749 4.4: what librdkafka's `sasl.oauthbearer.method=oidc` sends) and
  `authorization_code` with PKCE S256 (RFC 7636: what kacl console's sign-in sends);
- `GET /authorize`: a login form; `POST /authorize`: checks the person's password and
  redirects back with a one-time code;
- `POST /admin/rotate`: a new signing key becomes current (the old one stays published);
  `GET /admin/stats`: counters, for the tests.

Run alone, `python oidc_issuer.py serve [--client ID:SECRET]... [--user NAME:PASSWORD]...`
prints one JSON line (`issuer`, `token_endpoint`, `jwks_uri`, ...) and serves until stdin
closes, for the kafkajs suite and the console's browser tests. Tests in Python use
`Issuer.start()` directly.

Only for tests: client secrets and passwords are compared in constant time, codes are
single-use and expire, but there is no persistence and no TLS.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import json
import secrets
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

AUDIENCE = "kafka"
TOKEN_LIFETIME_S = 600
CODE_LIFETIME_S = 60


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def int_bytes(value: int, length: int | None = None) -> bytes:
    length = length or (value.bit_length() + 7) // 8
    return value.to_bytes(length, "big")


class SigningKey:
    """One key pair with its `kid` and JWS algorithm."""

    def __init__(self, kid: str, alg: str):
        self.kid = kid
        self.alg = alg
        if alg == "RS256":
            self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        elif alg == "ES256":
            self.private = ec.generate_private_key(ec.SECP256R1())
        else:
            raise ValueError(alg)

    def jwk(self) -> dict:
        numbers = self.private.public_key().public_numbers()
        if self.alg == "RS256":
            return {"kty": "RSA", "kid": self.kid, "use": "sig", "alg": "RS256",
                    "n": b64url(int_bytes(numbers.n)), "e": b64url(int_bytes(numbers.e))}
        return {"kty": "EC", "kid": self.kid, "use": "sig", "alg": "ES256", "crv": "P-256",
                "x": b64url(int_bytes(numbers.x, 32)), "y": b64url(int_bytes(numbers.y, 32))}

    def sign(self, claims: dict, header: dict | None = None) -> str:
        head = {"alg": self.alg, "typ": "JWT", "kid": self.kid, **(header or {})}
        signing_input = (b64url(json.dumps(head).encode()) + "." +
                         b64url(json.dumps(claims).encode())).encode()
        if self.alg == "RS256":
            signature = self.private.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        else:
            der = self.private.sign(signing_input, ec.ECDSA(hashes.SHA256()))
            r, s = decode_dss_signature(der)
            signature = int_bytes(r, 32) + int_bytes(s, 32)
        return signing_input.decode() + "." + b64url(signature)


class Issuer:
    """The provider's state and its HTTP server (one thread, in the calling process)."""

    def __init__(self, clients: dict[str, str], users: dict[str, str], alg: str = "RS256"):
        self.clients = dict(clients)
        self.users = dict(users)
        self.keys = [SigningKey("key-1", alg)]
        self.lock = threading.Lock()
        self.codes: dict[str, dict] = {}
        self.stats = {"jwks_fetches": 0, "tokens": 0, "logins": 0, "failed_logins": 0}
        self.server: ThreadingHTTPServer | None = None

    # --- lifecycle -----------------------------------------------------------------
    @classmethod
    def start(cls, clients: dict[str, str] | None = None, users: dict[str, str] | None = None,
              alg: str = "RS256") -> "Issuer":
        issuer = cls(clients or {}, users or {}, alg)
        handler = type("Handler", (_Handler,), {"issuer": issuer})
        issuer.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        issuer.server.daemon_threads = True
        threading.Thread(target=issuer.server.serve_forever, daemon=True).start()
        return issuer

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def __enter__(self) -> "Issuer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- what tests read -----------------------------------------------------------
    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def jwks_uri(self) -> str:
        return self.url + "/jwks"

    @property
    def token_endpoint(self) -> str:
        return self.url + "/token"

    def discovery(self) -> dict:
        return {
            "issuer": self.url,
            "authorization_endpoint": self.url + "/authorize",
            "token_endpoint": self.token_endpoint,
            "jwks_uri": self.jwks_uri,
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "client_credentials"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": sorted({k.alg for k in self.keys}),
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic",
                                                      "client_secret_post", "none"],
            "scopes_supported": ["openid", "profile", "kafka"],
        }

    def jwks(self) -> dict:
        with self.lock:
            return {"keys": [k.jwk() for k in self.keys]}

    def rotate(self, alg: str | None = None) -> str:
        """A new key signs from now on; the old ones stay in the JWKS. Returns its kid."""
        with self.lock:
            key = SigningKey(f"key-{len(self.keys) + 1}", alg or self.keys[-1].alg)
            self.keys.append(key)
            return key.kid

    def token(self, subject: str, lifetime_s: int = TOKEN_LIFETIME_S, **claims) -> str:
        """An access token for `subject`, signed by the current key."""
        now = int(time.time())
        body = {"iss": self.url, "sub": subject, "aud": AUDIENCE, "iat": now, "nbf": now,
                "exp": now + lifetime_s, "scope": "kafka", "jti": secrets.token_hex(8)}
        body.update(claims)
        with self.lock:
            key = self.keys[-1]
            self.stats["tokens"] += 1
        return key.sign(body)

    # --- grants --------------------------------------------------------------------
    def _client_ok(self, client_id: str | None, secret: str | None) -> bool:
        expected = self.clients.get(client_id or "")
        return expected is not None and hmac.compare_digest(expected, secret or "")

    def grant(self, form: dict[str, str], basic: tuple[str, str] | None) -> tuple[int, dict]:
        client_id, secret = basic if basic else (form.get("client_id"), form.get("client_secret"))
        grant_type = form.get("grant_type")
        if grant_type == "client_credentials":
            if not self._client_ok(client_id, secret):
                return 401, {"error": "invalid_client"}
            token = self.token(client_id or "")
            return 200, {"access_token": token, "token_type": "Bearer",
                         "expires_in": TOKEN_LIFETIME_S, "scope": form.get("scope", "kafka")}
        if grant_type == "authorization_code":
            with self.lock:
                entry = self.codes.pop(form.get("code", ""), None)
            if entry is None or entry["expires"] < time.time():
                return 400, {"error": "invalid_grant", "error_description": "unknown code"}
            if form.get("redirect_uri") != entry["redirect_uri"] or \
                    (client_id or form.get("client_id")) != entry["client_id"]:
                return 400, {"error": "invalid_grant", "error_description": "code mismatch"}
            if entry["client_id"] in self.clients and not self._client_ok(client_id, secret):
                return 401, {"error": "invalid_client"}
            verifier = form.get("code_verifier", "")
            challenge = b64url(hashlib.sha256(verifier.encode()).digest())
            if not hmac.compare_digest(challenge, entry["code_challenge"]):
                return 400, {"error": "invalid_grant", "error_description": "PKCE failed"}
            access = self.token(entry["user"])
            id_token = self.token(entry["user"], aud=entry["client_id"],
                                  nonce=entry.get("nonce"), scope=None)
            return 200, {"access_token": access, "id_token": id_token, "token_type": "Bearer",
                         "expires_in": TOKEN_LIFETIME_S}
        return 400, {"error": "unsupported_grant_type"}


LOGIN_FORM = """<!doctype html>
<html><head><title>Test identity provider: sign in</title></head>
<body><h1>Sign in to the test identity provider</h1>{error}
<form method="post" action="/authorize">{hidden}
<label>User name <input name="username" id="idp-username" autocomplete="username"></label>
<label>Password <input name="password" id="idp-password" type="password"></label>
<button type="submit" id="idp-submit">Sign in</button>
</form></body></html>
"""

AUTHORIZE_PARAMS = ("response_type", "client_id", "redirect_uri", "scope", "state",
                    "code_challenge", "code_challenge_method", "nonce")


class _Handler(BaseHTTPRequestHandler):
    issuer: Issuer
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt: str, *args: object) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes, content_type: str,
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, value: dict) -> None:
        self._send(status, json.dumps(value).encode(), "application/json")

    def _form(self) -> dict[str, str]:
        length = int(self.headers.get("Content-Length") or 0)
        if length > 65536:
            return {}
        raw = self.rfile.read(length).decode("utf-8", "replace")
        return {k: v[-1] for k, v in urllib.parse.parse_qs(raw, keep_blank_values=True).items()}

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        if path == "/.well-known/openid-configuration":
            self._json(200, self.issuer.discovery())
        elif path == "/jwks":
            with self.issuer.lock:
                self.issuer.stats["jwks_fetches"] += 1
            self._json(200, self.issuer.jwks())
        elif path == "/authorize":
            params = {k: v[-1] for k, v in urllib.parse.parse_qs(query).items()}
            self._login_form(params, None)
        elif path == "/admin/stats":
            with self.issuer.lock:
                self._json(200, dict(self.issuer.stats))
        else:
            self._json(404, {"error": "not_found"})

    def do_POST(self) -> None:
        path = self.path.partition("?")[0]
        if path == "/token":
            basic = None
            auth = self.headers.get("Authorization", "")
            if auth.lower().startswith("basic "):
                try:
                    pair = base64.b64decode(auth[6:]).decode()
                    user, _, password = pair.partition(":")
                    basic = (urllib.parse.unquote_plus(user), urllib.parse.unquote_plus(password))
                except ValueError:
                    basic = ("", "")
            status, body = self.issuer.grant(self._form(), basic)
            self._json(status, body)
        elif path == "/authorize":
            self._login(self._form())
        elif path == "/admin/rotate":
            form = self._form()
            self._json(200, {"kid": self.issuer.rotate(form.get("alg"))})
        elif path == "/admin/token":
            # Tests only: a token for any subject (no client, no password).
            form = self._form()
            lifetime = int(form.get("lifetime_s", TOKEN_LIFETIME_S))
            self._json(200, {"access_token": self.issuer.token(form["sub"], lifetime)})
        else:
            self._json(404, {"error": "not_found"})

    def _login_form(self, params: dict[str, str], error: str | None) -> None:
        if params.get("response_type") != "code" or not params.get("redirect_uri") or \
                params.get("code_challenge_method") != "S256" or not params.get("code_challenge"):
            self._json(400, {"error": "invalid_request",
                             "error_description": "code flow with PKCE S256 only"})
            return
        hidden = "".join(
            f'<input type="hidden" name="{name}" value="{html.escape(params.get(name, ""))}">'
            for name in AUTHORIZE_PARAMS)
        message = f'<p id="idp-error" role="alert">{html.escape(error)}</p>' if error else ""
        body = LOGIN_FORM.format(hidden=hidden, error=message).encode()
        self._send(200, body, "text/html; charset=utf-8")

    def _login(self, form: dict[str, str]) -> None:
        user, password = form.get("username", ""), form.get("password", "")
        expected = self.issuer.users.get(user)
        if expected is None or not hmac.compare_digest(expected, password):
            with self.issuer.lock:
                self.issuer.stats["failed_logins"] += 1
            self._login_form(form, "Wrong user name or password.")
            return
        code = secrets.token_urlsafe(24)
        with self.issuer.lock:
            self.issuer.stats["logins"] += 1
            self.issuer.codes[code] = {
                "user": user, "client_id": form.get("client_id", ""),
                "redirect_uri": form.get("redirect_uri", ""),
                "code_challenge": form.get("code_challenge", ""),
                "nonce": form.get("nonce"), "expires": time.time() + CODE_LIFETIME_S,
            }
        query = urllib.parse.urlencode({"code": code, "state": form.get("state", "")})
        separator = "&" if "?" in form["redirect_uri"] else "?"
        self._send(303, b"", "text/plain", {"Location": form["redirect_uri"] + separator + query})


def main(argv: list[str]) -> int:
    if not argv or argv[0] != "serve":
        print("usage: oidc_issuer.py serve [--client ID:SECRET]... [--user NAME:PASSWORD]... "
              "[--alg RS256|ES256]", file=sys.stderr)
        return 64
    clients: dict[str, str] = {}
    users: dict[str, str] = {}
    alg = "RS256"
    args = iter(argv[1:])
    for flag in args:
        value = next(args, "")
        if flag == "--client":
            name, _, secret = value.partition(":")
            clients[name] = secret
        elif flag == "--user":
            name, _, password = value.partition(":")
            users[name] = password
        elif flag == "--alg":
            alg = value
        else:
            print(f"oidc_issuer.py: unknown flag {flag}", file=sys.stderr)
            return 64
    issuer = Issuer.start(clients, users, alg)
    print(json.dumps({**issuer.discovery(), "url": issuer.url}), flush=True)
    try:
        sys.stdin.read()
    finally:
        issuer.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
