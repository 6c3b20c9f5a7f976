"""deploy/k8s rendered (base, dev, prod) with the pure-Python renderer and checked for invariants.

When the kubectl binary happens to be installed, the renderer's output is also compared with
``kubectl kustomize``; the invariant tests never need it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml

from tests.deploy.deploy_contract import (
    ENV_ALL,
    ENV_CONDUCTOR,
    ENV_RULES,
    GAME_TYPES,
    ROLES,
    ROOT,
    RULES_SERVICE_NAME,
    WEBHOOK_GRPC_PORT,
    WEBHOOK_SERVICE_NAME,
    role_of,
)
from tests.deploy.kustomize_lite import Resource, by_kind, render

K8S = ROOT / "deploy" / "k8s"
TARGETS = ["base", "overlays/dev", "overlays/prod"]
API_KEY_SECRET = "chaiwala-api-keys"


@pytest.fixture(scope="module", params=TARGETS)
def rendered(request: pytest.FixtureRequest) -> tuple[str, list[Resource]]:
    """(target, rendered resources) for each kustomization."""
    target: str = request.param
    return target, render(K8S / target)


def quantity(value: str | int | float) -> float:
    """A Kubernetes quantity (cpu or memory) as a float in base units."""
    text = str(value)
    suffixes = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 1e3, "M": 1e6, "G": 1e9}
    for suffix, factor in sorted(suffixes.items(), key=lambda item: -len(item[0])):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * factor
    return float(text)


def pod_spec(deployment: Resource) -> dict[str, Any]:
    """The pod spec of a Deployment."""
    spec: dict[str, Any] = deployment["spec"]["template"]["spec"]
    return spec


def config_maps(resources: list[Resource]) -> dict[str, dict[str, str]]:
    """ConfigMap name -> data."""
    return {name: cm.get("data", {}) for name, cm in by_kind(resources, "ConfigMap").items()}


def container_env(container: dict[str, Any], resources: list[Resource]) -> dict[str, str]:
    """Effective environment names -> value (``<secret>`` for secret references) of a container."""
    maps = config_maps(resources)
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        assert "configMapRef" in source, f"only ConfigMaps via envFrom: {source}"
        name = source["configMapRef"]["name"]
        assert name in maps, f"envFrom references missing ConfigMap {name}"
        env.update(maps[name])
    for item in container.get("env", []):
        if "valueFrom" in item:
            ref = item["valueFrom"].get("secretKeyRef") or item["valueFrom"].get("configMapKeyRef")
            assert ref, item
            env[item["name"]] = "<secret>" if "secretKeyRef" in item["valueFrom"] else maps[ref["name"]][ref["key"]]
        else:
            env[item["name"]] = str(item["value"])
    return env


def resolve_port(container: dict[str, Any], port: int | str) -> int:
    """A named or numbered container port as a number (asserting it is declared)."""
    declared = {p["name"]: p["containerPort"] for p in container.get("ports", []) if "name" in p}
    numbers = {p["containerPort"] for p in container.get("ports", [])}
    number = declared[port] if isinstance(port, str) else port
    assert number in numbers, f"port {port} not declared by {container['name']}"
    return int(number)


def role(deployment: Resource) -> tuple[str, str | None]:
    """(role, game) of the deployment's container command (deploy_contract.role_of); the game for a rules service."""
    (container,) = pod_spec(deployment)["containers"]
    command = [*container.get("command", []), *container.get("args", [])]
    found = role_of(command)
    assert found is not None, f"not a platform process: {command}"
    return found


def labels_match(selector: dict[str, str], labels: dict[str, str]) -> bool:
    """True if every selector pair is among the labels."""
    return all(labels.get(key) == value for key, value in selector.items())


def test_renders_without_duplicates(rendered: tuple[str, list[Resource]]) -> None:
    """Every kustomization renders; kinds are the expected ones; no Redis workload is hand-rolled."""
    target, resources = rendered
    kinds = {r["kind"] for r in resources}
    assert {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "ConfigMap"} <= kinds
    assert "StatefulSet" not in kinds, "Redis is an external service, not a home-made StatefulSet"
    for deployment in by_kind(resources, "Deployment").values():
        image = pod_spec(deployment)["containers"][0]["image"]
        assert "redis" not in image.lower(), f"{target}: no Redis container in these manifests"
    if target != "base":
        namespaces = {r["metadata"].get("namespace") for r in resources if r["kind"] != "Namespace"}
        assert len(namespaces) == 1 and None not in namespaces
        assert set(by_kind(resources, "Namespace")) == namespaces


def test_one_deployment_per_game_and_a_gateway(rendered: tuple[str, list[Resource]]) -> None:
    """Four rules-service Deployments (one per game type), one conductor and one gateway Deployment."""
    _, resources = rendered
    roles = [role(d) for d in by_kind(resources, "Deployment").values()]
    assert sorted(game for kind, game in roles if kind == "rules") == sorted(GAME_TYPES)  # type: ignore[type-var]
    assert [kind for kind, _ in roles].count("gateway") == 1
    assert [kind for kind, _ in roles].count("conductor") == 1
    assert [kind for kind, _ in roles].count("webhook") == 1
    assert [kind for kind, _ in roles].count("notify") == 1


def test_pods_are_locked_down(rendered: tuple[str, list[Resource]]) -> None:
    """Non-root, read-only root filesystem, no privilege escalation, every capability dropped."""
    target, resources = rendered
    for name, deployment in by_kind(resources, "Deployment").items():
        spec = pod_spec(deployment)
        pod_security = spec.get("securityContext", {})
        assert pod_security.get("runAsNonRoot") is True, name
        assert pod_security.get("runAsUser", 0) != 0, name
        assert spec.get("automountServiceAccountToken") is False, name
        volumes = {v["name"]: v for v in spec.get("volumes", [])}
        for container in spec["containers"]:
            security = container.get("securityContext", {})
            assert security.get("readOnlyRootFilesystem") is True, f"{target}/{name}"
            assert security.get("allowPrivilegeEscalation") is False, f"{target}/{name}"
            assert security.get("privileged", False) is False, f"{target}/{name}"
            assert security.get("capabilities", {}).get("drop") == ["ALL"], f"{target}/{name}"
            assert not security.get("capabilities", {}).get("add"), f"{target}/{name}"
            writable = {m["mountPath"]: m["name"] for m in container.get("volumeMounts", [])}
            assert "/tmp" in writable and "emptyDir" in volumes[writable["/tmp"]], "a writable /tmp is needed"


def test_resources_requests_and_limits(rendered: tuple[str, list[Resource]]) -> None:
    """Every container has cpu and memory requests and limits, limits >= requests."""
    target, resources = rendered
    for name, deployment in by_kind(resources, "Deployment").items():
        for container in pod_spec(deployment)["containers"]:
            limits = container["resources"]["limits"]
            requests = container["resources"]["requests"]
            for resource_name in ("cpu", "memory"):
                assert quantity(limits[resource_name]) >= quantity(requests[resource_name]), f"{target}/{name}"


def test_rules_service_probes_and_ports(rendered: tuple[str, list[Resource]]) -> None:
    """Native gRPC probes on the configured gRPC port; metrics port matches config and scrape annotations."""
    target, resources = rendered
    for name, deployment in by_kind(resources, "Deployment").items():
        if role(deployment)[0] != "rules":
            continue
        (container,) = pod_spec(deployment)["containers"]
        env = container_env(container, resources)
        grpc_port = int(env.get("CHAIWALA_GRPC_PORT", "50051"))
        metrics_port = int(env.get("CHAIWALA_METRICS_PORT", "9090"))
        assert resolve_port(container, "grpc") == grpc_port, f"{target}/{name}"
        assert resolve_port(container, "metrics") == metrics_port, f"{target}/{name}"
        for probe_name in ("readinessProbe", "livenessProbe", "startupProbe"):
            probe = container[probe_name]
            assert set(probe) & {"grpc", "httpGet", "exec", "tcpSocket"} == {"grpc"}, f"{name} {probe_name}"
            assert probe["grpc"]["port"] == grpc_port, f"{target}/{name} {probe_name}"
        assert container["readinessProbe"]["grpc"].get("service") == RULES_SERVICE_NAME
        annotations = deployment["spec"]["template"]["metadata"].get("annotations", {})
        assert annotations.get("prometheus.io/scrape") == "true"
        assert int(annotations["prometheus.io/port"]) == metrics_port
        assert annotations.get("prometheus.io/path", "/metrics") == "/metrics"


def test_conductor_probes_ports_and_autoscaler(rendered: tuple[str, list[Resource]]) -> None:
    """HTTP probes on the metrics port's /healthz (it has no other port; /healthz needs no metrics token),
    scrape annotations, an HPA on CPU and queue lag."""
    target, resources = rendered
    (conductor,) = [d for d in by_kind(resources, "Deployment").values() if role(d)[0] == "conductor"]
    (container,) = pod_spec(conductor)["containers"]
    metrics_port = int(container_env(container, resources).get("CHAIWALA_METRICS_PORT", "9090"))
    assert resolve_port(container, "metrics") == metrics_port
    for probe_name in ("readinessProbe", "livenessProbe", "startupProbe"):
        probe = container[probe_name]["httpGet"]
        assert probe["path"] == "/healthz" and resolve_port(container, probe["port"]) == metrics_port, target
    annotations = conductor["spec"]["template"]["metadata"].get("annotations", {})
    assert int(annotations["prometheus.io/port"]) == metrics_port
    (hpa,) = [h for h in by_kind(resources, "HorizontalPodAutoscaler").values()
              if h["spec"]["scaleTargetRef"]["name"] == conductor["metadata"]["name"]]
    kinds = {metric["type"] for metric in hpa["spec"]["metrics"]}
    assert kinds == {"Resource", "External"}, target
    (external,) = [m for m in hpa["spec"]["metrics"] if m["type"] == "External"]
    assert external["external"]["metric"]["name"] == "chaiwala_conductor_queue_lag_seconds"


def test_gateway_probes_and_ports(rendered: tuple[str, list[Resource]]) -> None:
    """HTTP probes: /readyz for readiness, /healthz for liveness, on CHAIWALA_HTTP_PORT."""
    target, resources = rendered
    (gateway,) = [d for d in by_kind(resources, "Deployment").values() if role(d)[0] == "gateway"]
    (container,) = pod_spec(gateway)["containers"]
    env = container_env(container, resources)
    http_port = int(env.get("CHAIWALA_HTTP_PORT", "8000"))
    assert http_port == 8000
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    for probe_name in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert resolve_port(container, container[probe_name]["httpGet"]["port"]) == http_port, target
    annotations = gateway["spec"]["template"]["metadata"].get("annotations", {})
    assert int(annotations["prometheus.io/port"]) == http_port


def test_env_names_follow_the_contract(rendered: tuple[str, list[Resource]]) -> None:
    """Every env name (direct or through ConfigMaps) is in the contract; API keys come only from a Secret."""
    target, resources = rendered
    for name, data in config_maps(resources).items():
        assert set(data) <= ENV_ALL, f"{target}/{name}: {sorted(set(data) - ENV_ALL)}"
        assert "CHAIWALA_API_KEYS" not in data, "API keys belong in a Secret"
    for name, deployment in by_kind(resources, "Deployment").items():
        kind, _ = role(deployment)
        (container,) = pod_spec(deployment)["containers"]
        env = container_env(container, resources)
        allowed = ROLES[kind][1]
        if kind == "conductor":
            env = {key: value for key, value in env.items() if key not in ENV_RULES - ENV_CONDUCTOR}
            assert "CHAIWALA_API_KEYS" not in env, "the conductor checks no API keys"
            assert {"REDIS_URL", "CHAIWALA_METRICS_PORT"} <= set(env)
        assert set(env) <= allowed, f"{target}/{name}: {sorted(set(env) - allowed)}"
        if kind == "director":
            assert env.get("CHAIWALA_API_KEYS") == "<secret>", f"{target}/{name}"
            assert {"REDIS_URL", "CHAIWALA_GRPC_PORT", "CHAIWALA_METRICS_PORT"} <= set(env)
        if kind in ("rules", "webhook"):
            # The rules services and the webhook service check operator keys; the gateway only passes the bearer on.
            assert env.get("CHAIWALA_API_KEYS") == "<secret>", f"{target}/{name}"
            for item in container["env"]:
                if item["name"] == "CHAIWALA_API_KEYS":
                    assert item["valueFrom"]["secretKeyRef"]["name"] == API_KEY_SECRET
            assert {"REDIS_URL", "CHAIWALA_GRPC_PORT", "CHAIWALA_METRICS_PORT"} <= set(env)
    # No overlay commits a credential: every Secret is created out of band (issue #44).
    assert not by_kind(resources, "Secret"), f"{target}: secrets are created out of band, never committed"


def test_services_select_their_deployments(rendered: tuple[str, list[Resource]]) -> None:
    """Each Deployment has a Service selecting its pods, with ports resolving to declared container ports."""
    target, resources = rendered
    services = by_kind(resources, "Service")
    for name, deployment in by_kind(resources, "Deployment").items():
        pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert labels_match(deployment["spec"]["selector"]["matchLabels"], pod_labels), f"{target}/{name}"
        matching = [s for s in services.values() if s["spec"].get("selector") and
                    labels_match(s["spec"]["selector"], pod_labels)]
        assert len(matching) == 1, f"{target}/{name}: {len(matching)} Services select it"
        (service,) = matching
        assert service["metadata"]["name"] == name
        (container,) = pod_spec(deployment)["containers"]
        for port in service["spec"]["ports"]:
            resolve_port(container, port.get("targetPort", port["port"]))


def test_gateway_reaches_every_rules_service(rendered: tuple[str, list[Resource]]) -> None:
    """CHAIWALA_SERVICE_<GAME> = <Service>:<port>, that Service fronts that game's Deployment on gRPC."""
    target, resources = rendered
    deployments = by_kind(resources, "Deployment")
    services = by_kind(resources, "Service")
    (gateway,) = [d for d in deployments.values() if role(d)[0] == "gateway"]
    env = container_env(pod_spec(gateway)["containers"][0], resources)
    for game in GAME_TYPES:
        host, port = env[f"CHAIWALA_SERVICE_{game.upper()}"].rsplit(":", 1)
        service = services[host]
        (service_port,) = [p for p in service["spec"]["ports"] if p["port"] == int(port)]
        deployment = deployments[host]
        assert role(deployment) == ("rules", game), f"{target}: {host}"
        (container,) = pod_spec(deployment)["containers"]
        target_port = resolve_port(container, service_port.get("targetPort", service_port["port"]))
        assert target_port == int(container_env(container, resources)["CHAIWALA_GRPC_PORT"])


def test_webhook_dispatcher_probes_ports_and_gateway_route(rendered: tuple[str, list[Resource]]) -> None:
    """gRPC probes on the WebhookService port, scrape annotations, the SSRF guard's defaults kept, and the
    gateway's CHAIWALA_SERVICE_WEBHOOK naming its Service on that port."""
    target, resources = rendered
    deployments = by_kind(resources, "Deployment")
    (webhook,) = [d for d in deployments.values() if role(d)[0] == "webhook"]
    (container,) = pod_spec(webhook)["containers"]
    env = container_env(container, resources)
    grpc_port = int(env["CHAIWALA_GRPC_PORT"])
    assert grpc_port == WEBHOOK_GRPC_PORT and resolve_port(container, "grpc") == grpc_port, target
    for probe_name in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert container[probe_name]["grpc"]["port"] == grpc_port, f"{target} {probe_name}"
    assert container["readinessProbe"]["grpc"].get("service") == WEBHOOK_SERVICE_NAME
    assert env["CHAIWALA_WEBHOOK_ALLOW_PRIVATE"] == "false" and env["CHAIWALA_WEBHOOK_ALLOW_LOOPBACK"] == "false"
    annotations = webhook["spec"]["template"]["metadata"].get("annotations", {})
    assert int(annotations["prometheus.io/port"]) == int(env["CHAIWALA_METRICS_PORT"])
    (gateway,) = [d for d in deployments.values() if role(d)[0] == "gateway"]
    host, port = container_env(pod_spec(gateway)["containers"][0], resources)["CHAIWALA_SERVICE_WEBHOOK"].rsplit(":", 1)
    assert deployments[host] is webhook and int(port) == grpc_port
    (service_port,) = [p for p in by_kind(resources, "Service")[host]["spec"]["ports"] if p["port"] == grpc_port]
    assert resolve_port(container, service_port["targetPort"]) == grpc_port


def test_redis_is_external(rendered: tuple[str, list[Resource]]) -> None:
    """REDIS_URL names an ExternalName Service; prod uses Redis Cluster mode."""
    target, resources = rendered
    rules_config = config_maps(resources)["chaiwala-rules-config"]
    host = urlparse(rules_config["REDIS_URL"]).hostname
    service = by_kind(resources, "Service")[host or ""]
    assert service["spec"]["type"] == "ExternalName"
    assert service["spec"]["externalName"].endswith(".svc.cluster.local") or "." in service["spec"]["externalName"]
    expected_cluster = "true" if target == "overlays/prod" else "false"
    assert rules_config["CHAIWALA_REDIS_CLUSTER"] == expected_cluster


def test_autoscalers_and_disruption_budgets(rendered: tuple[str, list[Resource]]) -> None:
    """Every Deployment has an HPA targeting it and a PDB selecting exactly its pods."""
    target, resources = rendered
    deployments = by_kind(resources, "Deployment")
    hpas = by_kind(resources, "HorizontalPodAutoscaler")
    pdbs = by_kind(resources, "PodDisruptionBudget")
    hpa_targets = set()
    for name, hpa in hpas.items():
        ref = hpa["spec"]["scaleTargetRef"]
        assert ref["kind"] == "Deployment" and ref["name"] in deployments, f"{target}/{name}"
        assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"], f"{target}/{name}"
        assert hpa["spec"]["metrics"], f"{target}/{name}"
        replicas = deployments[ref["name"]]["spec"].get("replicas", 1)
        assert hpa["spec"]["minReplicas"] <= replicas <= hpa["spec"]["maxReplicas"], f"{target}/{name}"
        hpa_targets.add(ref["name"])
    assert hpa_targets == set(deployments)
    pdb_targets = set()
    for name, pdb in pdbs.items():
        assert ("minAvailable" in pdb["spec"]) != ("maxUnavailable" in pdb["spec"]), f"{target}/{name}"
        selector = pdb["spec"]["selector"]["matchLabels"]
        selected = [
            d for d, deployment in deployments.items()
            if labels_match(selector, deployment["spec"]["template"]["metadata"]["labels"])
        ]
        assert len(selected) == 1, f"{target}/{name} selects {selected}"
        pdb_targets.add(selected[0])
    assert pdb_targets == set(deployments)


def test_overlay_specifics() -> None:
    """Dev runs one small replica of each tier; prod pins its image and runs at least 3 of each."""
    dev = render(K8S / "overlays/dev")
    prod = render(K8S / "overlays/prod")
    for deployment in by_kind(dev, "Deployment").values():
        assert deployment["spec"]["replicas"] == 1
        assert pod_spec(deployment)["containers"][0]["image"].endswith(":dev")
    for deployment in by_kind(prod, "Deployment").values():
        assert deployment["spec"]["replicas"] >= 3
        image = pod_spec(deployment)["containers"][0]["image"]
        assert re.fullmatch(r"[a-z0-9./-]+/chaiwala:\d+\.\d+\.\d+", image), image
    for hpa in by_kind(prod, "HorizontalPodAutoscaler").values():
        assert hpa["spec"]["minReplicas"] >= 3


@pytest.mark.parametrize("target", TARGETS)
def test_renderer_agrees_with_kubectl(target: str) -> None:
    """Cross-check of the pure-Python renderer against real kustomize, when kubectl happens to be present."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed; the invariant tests above use the pure-Python renderer")
    completed = subprocess.run(
        [kubectl, "kustomize", str(K8S / target)], capture_output=True, text=True, timeout=60, check=False
    )
    if completed.returncode != 0 and "unknown command" in completed.stderr:
        pytest.skip("this kubectl has no built-in kustomize")
    assert completed.returncode == 0, completed.stderr
    theirs = {(r["kind"], r["metadata"]["name"]): r for r in yaml.safe_load_all(completed.stdout) if r}
    mine = {(r["kind"], r["metadata"]["name"]): r for r in render(K8S / target)}
    assert mine.keys() == theirs.keys()
    for key, resource in mine.items():
        assert resource == theirs[key], key


# Field names of the Kubernetes API objects used here (apps/v1, core/v1), to catch misspelt keys that
# the API server would reject (or, worse, silently drop with client-side apply).
POD_SPEC_FIELDS = {
    "automountServiceAccountToken", "enableServiceLinks", "terminationGracePeriodSeconds", "securityContext",
    "topologySpreadConstraints", "containers", "initContainers", "volumes", "serviceAccountName", "affinity",
    "nodeSelector", "tolerations", "priorityClassName", "imagePullSecrets",
}
CONTAINER_FIELDS = {
    "name", "image", "imagePullPolicy", "command", "args", "ports", "env", "envFrom", "startupProbe",
    "readinessProbe", "livenessProbe", "resources", "securityContext", "volumeMounts", "lifecycle", "workingDir",
}
PROBE_FIELDS = {
    "grpc", "httpGet", "tcpSocket", "exec", "initialDelaySeconds", "periodSeconds", "timeoutSeconds",
    "failureThreshold", "successThreshold", "terminationGracePeriodSeconds",
}
CONTAINER_SECURITY_FIELDS = {
    "allowPrivilegeEscalation", "readOnlyRootFilesystem", "runAsNonRoot", "runAsUser", "runAsGroup", "privileged",
    "capabilities", "seccompProfile",
}
POD_SECURITY_FIELDS = {"runAsNonRoot", "runAsUser", "runAsGroup", "fsGroup", "seccompProfile", "supplementalGroups"}
SERVICE_PORT_FIELDS = {"name", "port", "targetPort", "protocol", "appProtocol", "nodePort"}


def test_manifest_field_names_are_known(rendered: tuple[str, list[Resource]]) -> None:
    """No misspelt field in pod specs, containers, probes, security contexts or Service ports."""
    target, resources = rendered
    for name, deployment in by_kind(resources, "Deployment").items():
        spec = pod_spec(deployment)
        where = f"{target}/{name}"
        assert set(spec) <= POD_SPEC_FIELDS, f"{where}: {sorted(set(spec) - POD_SPEC_FIELDS)}"
        assert set(spec["securityContext"]) <= POD_SECURITY_FIELDS, where
        for container in spec["containers"]:
            assert set(container) <= CONTAINER_FIELDS, f"{where}: {sorted(set(container) - CONTAINER_FIELDS)}"
            security = container["securityContext"]
            assert set(security) <= CONTAINER_SECURITY_FIELDS, f"{where}: {sorted(set(security))}"
            assert set(container["resources"]) <= {"requests", "limits"}, where
            for probe_name in ("startupProbe", "readinessProbe", "livenessProbe"):
                probe = container[probe_name]
                assert set(probe) <= PROBE_FIELDS, f"{where} {probe_name}: {sorted(set(probe) - PROBE_FIELDS)}"
    for name, service in by_kind(resources, "Service").items():
        for port in service["spec"].get("ports", []):
            assert set(port) <= SERVICE_PORT_FIELDS, f"{target}/{name}: {sorted(set(port))}"
