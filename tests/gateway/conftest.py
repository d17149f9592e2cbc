"""pytest wiring for tests/gateway: a failed test shows the last lines of the kacl
gateway logs it used (from the Env / KaclGateway fixtures among its arguments)."""

from __future__ import annotations

import pytest


def _gateways(item):
    seen = []
    for value in getattr(item, "funcargs", {}).values():
        gw = getattr(value, "gateway", value)
        if type(gw).__name__ == "KaclGateway" and gw not in seen:
            seen.append(gw)
    return seen


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed and report.when in ("setup", "call"):
        for gw in _gateways(item):
            report.sections.append(("kacl gateway log %s (last lines)" % gw.bootstrap, gw.log_tail(40)))
    return report
