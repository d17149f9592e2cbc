"""The ACL cases of acl_cases.json, read once for the Python suites.

ACLs are compared as plain tuples of Kafka names, `AclKey`, so that a suite only has to
turn its client's result objects into keys; a mismatch then shows as a readable diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

CASES = json.loads((Path(__file__).resolve().parent / "acl_cases.json").read_text())


class AclKey(NamedTuple):
    """One ACL (or filter) in Kafka's names: TOPIC/GROUP/CLUSTER, LITERAL/PREFIXED, ..."""

    resource_type: str
    name: str | None
    pattern_type: str
    principal: str | None
    host: str | None
    operation: str
    permission: str


def key_of(spec: dict) -> AclKey:
    return AclKey(
        spec["resource_type"],
        spec["name"],
        spec["pattern_type"],
        spec["principal"],
        spec["host"],
        spec["operation"],
        spec["permission"],
    )


SEED: dict[str, dict] = CASES["seed"]
DESCRIBE_CASES: list[dict] = CASES["describe"]
DELETE_CASE: dict = CASES["delete"]
NON_SUPER_USER_CREATE: dict[str, dict] = CASES["non_super_user_create"]
GRANT_CLUSTER_DESCRIBE_TO_ALICE: dict = CASES["grant_cluster_describe_to_alice"]
ANY_FILTER: dict = DESCRIBE_CASES[0]["filter"]
assert DESCRIBE_CASES[0]["id"] == "any", "acl_cases.json: the first describe case must be the ANY filter"


def expected(names: list[str]) -> list[AclKey]:
    """The seed ACLs with these names, sorted, as `sorted(keys)` of a result compares to."""
    return sorted(key_of(SEED[name]) for name in names)
