"""What the API contract tests share: the OpenAPI document the session's gateway serves."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.client import served_openapi


@pytest.fixture(scope="module")
def spec(client: httpx.Client) -> dict[str, Any]:
    """The served OpenAPI document (once per module)."""
    return served_openapi(client)
