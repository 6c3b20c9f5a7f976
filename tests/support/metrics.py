"""Reading Prometheus metrics in tests: one parser for every test that scrapes a process."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families


def scrape(url: str) -> str:
    """The exposition text of a ``/metrics`` endpoint (``url`` is the endpoint itself)."""
    return httpx.get(url, timeout=10).text


def samples_sum(text: str, name: str, **labels: str) -> float:
    """The sum of one metric's samples carrying these labels (0 if there are none)."""
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items())
    )


def exported(text: str, name: str, **labels: str) -> float:
    """:func:`samples_sum`, asserting the metric is exported at all."""
    names = {sample.name for family in text_string_to_metric_families(text) for sample in family.samples}
    assert name in names, f"{name} not exported"
    return samples_sum(text, name, **labels)
