"""Kubernetes: Redis's password and the master key ring come from Secrets, and only Chaiwala's pods
reach Redis (issue #44, item 3); rendered with the pure-Python renderer, as the other deploy tests."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.deploy.kustomize_lite import by_kind, render
from tests.deploy.test_deploy_kustomize import K8S, TARGETS, container_env, pod_spec

MOUNT = "/run/secrets/chaiwala"


@pytest.mark.parametrize("target", TARGETS)
def test_every_redis_client_reads_its_password_and_key_ring_from_secrets(target: str) -> None:
    resources = render(K8S / target)
    clients = 0
    for name, deployment in by_kind(resources, "Deployment").items():
        (container,) = pod_spec(deployment)["containers"]
        env = container_env(container, resources)
        if "REDIS_URL" not in env:
            continue
        clients += 1
        assert urlparse(env["REDIS_URL"]).password is None, f"{target}/{name}: a password in the URL"
        assert env["CHAIWALA_REDIS_PASSWORD_FILE"] == f"{MOUNT}/redis_password"
        assert env["CHAIWALA_SECRET_KEYS_FILE"] == f"{MOUNT}/secret.keys"
        mount = next(m for m in container["volumeMounts"] if m["mountPath"] == MOUNT)
        assert mount["readOnly"] is True
        volume = next(v for v in pod_spec(deployment)["volumes"] if v["name"] == mount["name"])
        sources = {source["secret"]["name"]: source["secret"]["items"] for source in volume["projected"]["sources"]}
        assert sources == {
            "chaiwala-redis": [{"key": "password", "path": "redis_password"}],
            "chaiwala-secret-keys": [{"key": "secret.keys", "path": "secret.keys"}],
        }
        assert volume["projected"]["defaultMode"] == 0o440  # the pod's group (fsGroup) reads, nobody else
    # Four rules services, the conductor, the director, the webhook dispatcher, the matchmaker, the
    # notification sender.
    assert clients == 9, f"{target}: {clients} Deployments reach Redis"
    rendered_secrets = by_kind(resources, "Secret")
    assert "chaiwala-redis" not in rendered_secrets and "chaiwala-secret-keys" not in rendered_secrets


def test_only_chaiwalas_pods_reach_redis() -> None:
    resources = render(K8S / "redis-access")
    (policy,) = by_kind(resources, "NetworkPolicy").values()
    assert policy["metadata"]["namespace"] == "redis"
    spec = policy["spec"]
    assert spec["policyTypes"] == ["Ingress"]
    redis_pods = spec["podSelector"]["matchExpressions"][0]
    assert redis_pods["key"] == "app.kubernetes.io/name" and set(redis_pods["values"]) == {"redis", "redis-cluster"}
    chaiwala, own = spec["ingress"]
    (peer,) = chaiwala["from"]
    assert peer["podSelector"]["matchLabels"] == {"app.kubernetes.io/part-of": "chaiwala"}
    namespaces = peer["namespaceSelector"]["matchExpressions"][0]
    assert set(namespaces["values"]) == {"chaiwala", "chaiwala-dev"}  # the overlays' namespaces
    assert chaiwala["ports"] == [{"port": 6379, "protocol": "TCP"}]
    (redis_peer,) = own["from"]
    assert set(redis_peer) == {"podSelector"}  # Redis's own pods, in its namespace only
    for overlay in ("dev", "prod"):
        namespace = next(iter(by_kind(render(K8S / "overlays" / overlay), "Namespace")))
        assert namespace in namespaces["values"]
        labels = {d["spec"]["template"]["metadata"]["labels"].get("app.kubernetes.io/part-of")
                  for d in by_kind(render(K8S / "overlays" / overlay), "Deployment").values()}  # fmt: skip
        assert labels == {"chaiwala"}  # every pod the policy must admit carries the label
