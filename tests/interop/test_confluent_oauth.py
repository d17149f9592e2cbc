"""confluent-kafka 2.16.1 (librdkafka) logging in to kacl with SASL/OAUTHBEARER, the way a
service does against a Kafka cluster behind an identity provider: librdkafka's built-in
OIDC support (`sasl.oauthbearer.method=oidc`) fetches an access token from the test
provider's token endpoint with the client credentials grant, and kacl validates it through
the provider's JWKS endpoint (oidc_issuer.py: real RS256 keys, real HTTP).

What is checked: the token's `sub` is the principal the ACLs see; kacl refuses a token for
another audience with Kafka's `invalid_token` error; after the provider rotates its key,
kacl fetches the new JWKS on the first token that names it and lets the client in.
"""

from __future__ import annotations

import time

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)

from conftest import OAUTH_CLIENT, _server, oauth_properties
from harness import ADMIN, KaclServer

TIMEOUT_S = 15


def plain_admin(server: KaclServer) -> AdminClient:
    return AdminClient({
        "bootstrap.servers": server.sasl,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "PLAIN",
        "sasl.username": ADMIN.name,
        "sasl.password": ADMIN.password,
    })


def oidc_admin(server: KaclServer, issuer, secret: str = OAUTH_CLIENT[1], **extra) -> AdminClient:
    conf = {
        "bootstrap.servers": server.sasl,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "OAUTHBEARER",
        "sasl.oauthbearer.method": "oidc",
        "sasl.oauthbearer.client.id": OAUTH_CLIENT[0],
        "sasl.oauthbearer.client.secret": secret,
        "sasl.oauthbearer.token.endpoint.url": issuer.token_endpoint,
        "sasl.oauthbearer.scope": "kafka",
    }
    conf.update(extra)
    return AdminClient(conf)


def grant_create(admin: AdminClient, topic: str, principal: str) -> None:
    binding = AclBinding(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, principal, "*",
                         AclOperation.CREATE, AclPermissionType.ALLOW)
    for future in admin.create_acls([binding], request_timeout=TIMEOUT_S).values():
        assert future.result() is None


def create_topic(admin: AdminClient, name: str) -> None:
    futures = admin.create_topics([NewTopic(name, 1, 1)], request_timeout=TIMEOUT_S)
    futures[name].result()


def test_oauth_token_subject_is_the_principal(kacl_oauth: KaclServer, oidc) -> None:
    service = oidc_admin(kacl_oauth, oidc)
    # Authenticated, but User:svc-reporting may not create the topic yet.
    with pytest.raises(KafkaException) as excinfo:
        create_topic(service, "reports")
    assert excinfo.value.args[0].code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    # An ACL for exactly that principal lets it.
    admin = plain_admin(kacl_oauth)
    grant_create(admin, "reports", f"User:{OAUTH_CLIENT[0]}")
    create_topic(service, "reports")
    assert "reports" in admin.list_topics(timeout=TIMEOUT_S).topics
    # It has no DESCRIBE on the topic: Metadata does not show it to the service.
    assert "reports" not in service.list_topics(timeout=TIMEOUT_S).topics
    assert oidc.stats["tokens"] >= 1
    log = kacl_oauth.log_tail(400)
    assert f"principal=User:{OAUTH_CLIENT[0]}" in log, log
    assert "mechanism=OAUTHBEARER" in log, log


def test_oauth_token_for_another_audience_is_refused(request: pytest.FixtureRequest, oidc) -> None:
    # The broker expects tokens for `payments`; the provider issues tokens for `kafka`.
    gen = _server(request, tls=False, extra=oauth_properties(oidc, audience="payments"))
    server = next(gen)
    try:
        errors: list[KafkaError] = []
        service = oidc_admin(server, oidc, error_cb=errors.append)
        with pytest.raises(KafkaException):
            service.list_topics(timeout=5)
        deadline = time.monotonic() + 10
        while not any(e.code() == KafkaError._AUTHENTICATION for e in errors) \
                and time.monotonic() < deadline:
            service.poll(0.2)
        auth = [e for e in errors if e.code() == KafkaError._AUTHENTICATION]
        assert auth, f"no authentication error reported, got {errors}"
        assert "invalid_token" in auth[0].str(), auth[0].str()
        log = server.log_tail(400)
        assert "refused authentication token" in log and "audience" in log, log
    finally:
        gen.close()


def test_oauth_key_rotation(kacl_oauth: KaclServer, oidc) -> None:
    grant_create(plain_admin(kacl_oauth), "before", f"User:{OAUTH_CLIENT[0]}")
    grant_create(plain_admin(kacl_oauth), "after", f"User:{OAUTH_CLIENT[0]}")
    create_topic(oidc_admin(kacl_oauth, oidc), "before")
    fetches = oidc.stats["jwks_fetches"]
    assert fetches == 1, "kacl reads the JWKS once at start"
    oidc.rotate("ES256")
    # A new client gets a token signed by the new key: kacl's first look fails and fetches
    # the JWKS; librdkafka retries its login and gets in, within the one call.
    create_topic(oidc_admin(kacl_oauth, oidc), "after")
    assert oidc.stats["jwks_fetches"] == fetches + 1
    assert "JWKS refresh expedited" in kacl_oauth.log_tail(400)
