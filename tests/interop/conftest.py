"""pytest wiring for the Python interop suites: a fresh `kacl serve` per test.

A server per test keeps the tests independent (exact ACL counts, no topic left over from
another test); kacl starts in well under a second, so this costs little. When a test
fails, the server's last log lines are shown with the failure.
"""

from __future__ import annotations

import os

import pytest

from harness import HarnessError, KaclServer, find_binary


def pytest_sessionstart(session: pytest.Session) -> None:
    """Stop at once, with one clear line, when there is no server binary to test."""
    try:
        find_binary()
    except HarnessError as error:
        pytest.exit(f"interop harness: {error}", returncode=3)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `scram` run by default; KACL_INTEROP_SCRAM=0 skips them (e.g. against an
    older kacl)."""
    if os.environ.get("KACL_INTEROP_SCRAM", "1") != "0":
        return
    skip = pytest.mark.skip(reason="SCRAM interop skipped by KACL_INTEROP_SCRAM=0")
    for item in items:
        if "scram" in item.keywords:
            item.add_marker(skip)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A failed setup or test shows the last lines of its server's log with the failure."""
    report = yield
    server = getattr(item, "kacl_server", None)
    if server is not None and report.failed and report.when in ("setup", "call"):
        report.sections.append(("kacl serve log (last lines)", server.log_tail()))
    return report


@pytest.fixture
def kacl(request: pytest.FixtureRequest):
    """A running server (see harness.py for its configuration), stopped after the test."""
    yield from _server(request, tls=False)


@pytest.fixture
def kacl_tls(request: pytest.FixtureRequest):
    """Like `kacl`, plus a SASL_SSL listener (`server.sasl_ssl`, CA at `server.ca_path`)."""
    yield from _server(request, tls=True)


@pytest.fixture
def kacl_reauth(request: pytest.FixtureRequest):
    """Like `kacl`, with SASL sessions of REAUTH_MS (connections.max.reauth.ms, KIP-368)."""
    yield from _server(request, tls=False, extra={"connections.max.reauth.ms": str(REAUTH_MS)})


# Session lifetime of the `kacl_reauth` server: long enough for a client to log in and
# re-authenticate at ~85-95% of it, short enough that a test sees several renewals.
REAUTH_MS = 3000


def _server(request: pytest.FixtureRequest, tls: bool, extra: dict[str, str] | None = None):
    try:
        server = KaclServer.start(tls=tls, extra=extra)
    except HarnessError as error:
        pytest.fail(f"interop harness: {error}", pytrace=False)
    request.node.kacl_server = server
    try:
        yield server
    finally:
        server.stop()


# --- OAUTHBEARER (issue 29): a real OpenID provider (oidc_issuer.py) and a server that
# validates its tokens through its JWKS endpoint.

# The service identity the OAUTHBEARER tests log in as (client credentials grant).
OAUTH_CLIENT = ("svc-reporting", "reporting-secret")


@pytest.fixture
def oidc():
    """A running test OpenID provider with the OAUTH_CLIENT registered."""
    from oidc_issuer import Issuer

    issuer = Issuer.start(clients={OAUTH_CLIENT[0]: OAUTH_CLIENT[1]})
    try:
        yield issuer
    finally:
        issuer.stop()


def oauth_properties(issuer, audience: str = "kafka") -> dict[str, str]:
    """What a Kafka broker's server.properties says to validate `issuer`'s tokens."""
    return {
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER",
        "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class":
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler",
        "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config":
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required ;",
        "sasl.oauthbearer.jwks.endpoint.url": issuer.jwks_uri,
        "sasl.oauthbearer.expected.audience": audience,
        "sasl.oauthbearer.expected.issuer": issuer.url,
    }


@pytest.fixture
def kacl_oauth(request: pytest.FixtureRequest, oidc):
    """Like `kacl`, with OAUTHBEARER validating `oidc`'s tokens."""
    yield from _server(request, tls=False, extra=oauth_properties(oidc))
