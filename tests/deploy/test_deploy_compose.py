"""docker-compose.yml, Prometheus and Grafana provisioning, checked against the runtime contract.

No Docker engine is needed: the files are parsed and their invariants checked.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml

from services.common.registry import unit_for
from tests.deploy.deploy_contract import (
    DEFAULTS,
    ENV_ALL,
    GAME_TYPES,
    GATEWAY_PORT,
    ROLES,
    ROOT,
    WEBHOOK_GRPC_PORT,
    WEBHOOK_SERVICE_NAME,
    role_of,
)

COMPOSE_PATH = ROOT / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    """The parsed compose file (YAML anchors and merge keys resolved)."""
    data: dict[str, Any] = yaml.safe_load(COMPOSE_PATH.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Compose services by name."""
    found: dict[str, dict[str, Any]] = compose["services"]
    return found


def command_of(service: dict[str, Any]) -> list[str]:
    """A service's command as an argv list."""
    command = service.get("command", [])
    return shlex.split(command) if isinstance(command, str) else [str(part) for part in command]


def environment_of(service: dict[str, Any]) -> dict[str, str]:
    """A service's environment as a dict (list or mapping syntax)."""
    env = service.get("environment", {}) or {}
    if isinstance(env, list):
        return dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {key: "" if value is None else str(value) for key, value in env.items()}


def rules_services(services: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Compose service name -> game type, for the services running a rules server."""
    found = {name: role_of(command_of(service)) for name, service in services.items()}
    return {name: str(role[1]) for name, role in found.items() if role and role[0] == "rules"}


def running(services: dict[str, dict[str, Any]], role: str) -> list[str]:
    """Compose services running the process of ``role`` (deploy_contract.ROLES)."""
    return [name for name, service in services.items() if (role_of(command_of(service)) or ("",))[0] == role]


def host_path(source: str) -> Path:
    """A bind-mount source relative to the compose file."""
    return (COMPOSE_PATH.parent / source).resolve()


def mounts(service: dict[str, Any]) -> dict[str, str]:
    """Container path -> source (named volume or host path) for a service's volumes."""
    found = {}
    for volume in service.get("volumes", []):
        if isinstance(volume, str):
            parts = volume.split(":")
            found[parts[1]] = parts[0]
        else:
            found[volume["target"]] = volume["source"]
    return found


def test_compose_has_every_tier(services: dict[str, dict[str, Any]]) -> None:
    """Redis, one rules service per game, one gateway, Prometheus and Grafana."""
    assert sorted(rules_services(services).values()) == sorted(GAME_TYPES)
    assert len(running(services, "gateway")) == 1
    assert len(running(services, "conductor")) == 1
    assert len(running(services, "director")) == 1
    assert len(running(services, "webhook")) == 1
    assert len(running(services, "matchmaker")) == 1
    images = {name: str(service.get("image", "")) for name, service in services.items()}
    assert any(image.startswith("redis:") for image in images.values())
    assert any(image.startswith("prom/prometheus:") for image in images.values())
    assert any(image.startswith("grafana/grafana:") for image in images.values())
    for image in images.values():
        if ":" in image and "${" not in image:
            assert not image.endswith(":latest"), f"pin third-party images: {image}"


def test_every_service_has_a_healthcheck(services: dict[str, dict[str, Any]]) -> None:
    """Every container declares a health check with a real test command."""
    for name, service in services.items():
        check = service.get("healthcheck")
        assert check, f"{name} has no healthcheck"
        assert not check.get("disable", False), name
        test = check["test"]
        assert isinstance(test, list) and test[0] in {"CMD", "CMD-SHELL"} and len(test) > 1, f"{name}: {test}"
        for key in ("interval", "timeout", "retries"):
            assert key in check, f"{name} healthcheck lacks {key}"


def test_depends_on_waits_for_health(services: dict[str, dict[str, Any]]) -> None:
    """Every dependency uses condition: service_healthy on a service that has a health check."""
    for name, service in services.items():
        depends = service.get("depends_on", {})
        assert not isinstance(depends, list), f"{name}: list-form depends_on cannot wait for health"
        for dependency, options in depends.items():
            assert dependency in services, f"{name} depends on unknown {dependency}"
            assert options.get("condition") == "service_healthy", f"{name} -> {dependency}: {options}"
            assert "healthcheck" in services[dependency]


def test_chaiwala_images_build_from_the_dockerfile(services: dict[str, dict[str, Any]]) -> None:
    """The gateway and every rules service run the project image built from the root Dockerfile."""
    for name in [*rules_services(services), *running(services, "gateway"), *running(services, "conductor"),
                 *running(services, "director")]:  # fmt: skip
        build = services[name]["build"]
        context = build if isinstance(build, str) else build["context"]
        dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
        assert (host_path(context) / dockerfile).is_file(), name


def test_environment_names_follow_the_contract(services: dict[str, dict[str, Any]]) -> None:
    """No misspelt CHAIWALA_* variable anywhere; each process gets only the names it reads."""
    for name, service in services.items():
        env = environment_of(service)
        chaiwala_names = {key for key in env if key.startswith("CHAIWALA_") or key == "REDIS_URL"}
        assert chaiwala_names <= ENV_ALL, f"{name}: unknown {sorted(chaiwala_names - ENV_ALL)}"
        role = role_of(command_of(service))
        if role is None:
            continue
        allowed = ROLES[role[0]][1]
        assert set(env) <= allowed, f"{name}: {sorted(set(env) - allowed)}"
        if role[0] == "rules":
            assert {"REDIS_URL", "CHAIWALA_GRPC_PORT", "CHAIWALA_METRICS_PORT"} <= set(env)


def port_of(env: dict[str, str], variable: str) -> int:
    """A port variable's value, or its contract default."""
    return int(env.get(variable, DEFAULTS[variable]))


def test_rules_services(services: dict[str, dict[str, Any]]) -> None:
    """Each rules service: Redis URL names the compose Redis, health check on its gRPC port, ports exposed."""
    redis_services = [name for name, s in services.items() if str(s.get("image", "")).startswith("redis:")]
    published_hosts: set[str] = set()
    for name in rules_services(services):
        service = services[name]
        env = environment_of(service)
        url = urlparse(env["REDIS_URL"])
        assert url.scheme == "redis" and url.hostname in redis_services, env["REDIS_URL"]
        assert service["depends_on"][url.hostname]["condition"] == "service_healthy"
        assert env.get("CHAIWALA_REDIS_CLUSTER", "false") == "false"
        grpc_port = port_of(env, "CHAIWALA_GRPC_PORT")
        metrics_port = port_of(env, "CHAIWALA_METRICS_PORT")
        assert {str(grpc_port), str(metrics_port)} <= {str(p) for p in service.get("expose", [])}
        test = service["healthcheck"]["test"]
        assert "grpc" in test and f"127.0.0.1:{grpc_port}" in test, test
        for mapping in service.get("ports", []):
            host, container = str(mapping).rsplit(":", 1)
            assert int(container) == grpc_port, f"{name}: only the gRPC port is published"
            published_hosts.add(host)
    assert len(published_hosts) == len(rules_services(services)), "host ports must not collide"


def assert_waits_for_compose_redis(services: dict[str, dict[str, Any]], service: dict[str, Any]) -> None:
    """``service``'s REDIS_URL names the compose Redis, and it starts once Redis is healthy."""
    url = urlparse(environment_of(service)["REDIS_URL"])
    assert url.scheme == "redis" and str(services[url.hostname or ""].get("image", "")).startswith("redis:")
    assert service["depends_on"][url.hostname]["condition"] == "service_healthy"


def test_conductor(services: dict[str, dict[str, Any]]) -> None:
    """The conductor reaches the compose Redis, waits for it, and is health-checked on its metrics port's
    /healthz (open even when the metrics need a token)."""
    (name,) = running(services, "conductor")
    conductor = services[name]
    env = environment_of(conductor)
    assert_waits_for_compose_redis(services, conductor)
    metrics_port = port_of(env, "CHAIWALA_METRICS_PORT")
    assert str(metrics_port) in [str(p) for p in conductor.get("expose", [])]
    test = conductor["healthcheck"]["test"]
    assert f"http://127.0.0.1:{metrics_port}/healthz" in test, test
    assert "ports" not in conductor, "the conductor serves no one outside"


def test_director(services: dict[str, dict[str, Any]]) -> None:
    """The tournament director reaches Redis and every rules service, is health-checked on its gRPC port and
    serves only inside the compose network; the gateway routes to it."""
    rules = rules_services(services)
    (name,) = running(services, "director")
    director = services[name]
    env = environment_of(director)
    url = urlparse(env["REDIS_URL"])
    assert director["depends_on"][url.hostname]["condition"] == "service_healthy"
    grpc_port = port_of(env, "CHAIWALA_GRPC_PORT")
    metrics_port = port_of(env, "CHAIWALA_METRICS_PORT")
    assert {str(grpc_port), str(metrics_port)} <= {str(p) for p in director.get("expose", [])}
    assert f"127.0.0.1:{grpc_port}" in director["healthcheck"]["test"]
    assert "ports" not in director
    for game in GAME_TYPES:
        host, port = env[f"CHAIWALA_SERVICE_{game.upper()}"].rsplit(":", 1)
        assert rules.get(host) == game and director["depends_on"][host]["condition"] == "service_healthy"
        assert int(port) == port_of(environment_of(services[host]), "CHAIWALA_GRPC_PORT")
    (gateway,) = running(services, "gateway")
    assert environment_of(services[gateway])["CHAIWALA_SERVICE_TOURNAMENT"] == f"{name}:{grpc_port}"


def test_webhook_dispatcher(services: dict[str, dict[str, Any]]) -> None:
    """The dispatcher reaches the compose Redis, is health-checked on its gRPC service, keeps the SSRF
    guard's defaults (no private or loopback targets), and the gateway routes /v1/webhooks to it."""
    (name,) = running(services, "webhook")
    webhook = services[name]
    env = environment_of(webhook)
    assert_waits_for_compose_redis(services, webhook)
    grpc_port = int(env["CHAIWALA_GRPC_PORT"])
    assert grpc_port == WEBHOOK_GRPC_PORT
    assert {str(grpc_port), str(port_of(env, "CHAIWALA_METRICS_PORT"))} <= {str(p) for p in webhook["expose"]}
    test = webhook["healthcheck"]["test"]
    assert f"127.0.0.1:{grpc_port}" in test and WEBHOOK_SERVICE_NAME in test, test
    assert env["CHAIWALA_WEBHOOK_ALLOW_PRIVATE"].endswith("false}")
    assert env["CHAIWALA_WEBHOOK_ALLOW_LOOPBACK"].endswith("false}")
    assert "ports" not in webhook, "operators reach webhooks through the gateway"
    (gateway,) = running(services, "gateway")
    assert environment_of(services[gateway])["CHAIWALA_SERVICE_WEBHOOK"] == f"{name}:{grpc_port}"


def test_rules_services_publish_their_registered_slot_and_prometheus_scrapes_them(
    services: dict[str, dict[str, Any]],
) -> None:
    """Each registered game's rules service publishes ``50051 + slot`` on the host (as ``make run``
    serves it) and Prometheus scrapes exactly the rules services compose runs."""
    rules = rules_services(services)
    for name, game in rules.items():
        published = [str(port).split(":")[0] for port in services[name].get("ports", [])]
        assert published == [str(50051 + unit_for(game).slot)], f"{name}: {published}"
    config = yaml.safe_load((ROOT / "deploy" / "prometheus" / "prometheus.yml").read_text())
    (job,) = [job for job in config["scrape_configs"] if job["job_name"] == "chaiwala-rules"]
    targets = [target for group in job["static_configs"] for target in group["targets"]]
    assert sorted(target.split(":")[0] for target in targets) == sorted(rules)


def test_gateway(services: dict[str, dict[str, Any]]) -> None:
    """The gateway listens on 8000, probes /readyz, and reaches every rules service by name and port."""
    rules = rules_services(services)
    (name,) = running(services, "gateway")
    gateway = services[name]
    env = environment_of(gateway)
    http_port = port_of(env, "CHAIWALA_HTTP_PORT")
    assert http_port == GATEWAY_PORT
    assert f"{GATEWAY_PORT}:{http_port}" in [str(p) for p in gateway["ports"]]
    test = gateway["healthcheck"]["test"]
    assert any(part.endswith(f":{http_port}/readyz") for part in test), test
    for game in GAME_TYPES:
        target = env[f"CHAIWALA_SERVICE_{game.upper()}"]
        host, port = target.rsplit(":", 1)
        assert rules.get(host) == game, f"{target} does not run {game}"
        assert int(port) == port_of(environment_of(services[host]), "CHAIWALA_GRPC_PORT")
        assert gateway["depends_on"][host]["condition"] == "service_healthy"
    assert "depends_on" in gateway and not any(s.startswith("redis") for s in gateway["depends_on"]), (
        "the gateway does not talk to Redis"
    )


def test_healthcheck_script_is_in_the_image(services: dict[str, dict[str, Any]]) -> None:
    """The health-check script the compose file calls exists and the Dockerfile copies it there."""
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    for name in [*rules_services(services), *running(services, "gateway"), *running(services, "conductor"),
                 *running(services, "director")]:  # fmt: skip
        test = services[name]["healthcheck"]["test"]
        script = next(part for part in test if part.endswith(".py"))
        assert script.startswith("/app/")
        relative = script.removeprefix("/app/")
        assert (ROOT / relative).is_file(), relative
        assert re.search(rf"^COPY\s+{re.escape(relative)}\s+\S+", dockerfile, re.MULTILINE), relative


def test_redis_aof_on_a_named_volume(compose: dict[str, Any], services: dict[str, dict[str, Any]]) -> None:
    """Redis loads deploy/redis/redis.conf, which enables AOF in a dir backed by a named volume."""
    (name,) = [name for name, s in services.items() if str(s.get("image", "")).startswith("redis:")]
    redis_service = services[name]
    volume_mounts = mounts(redis_service)
    conf_in_container = next(arg for arg in command_of(redis_service) if arg.endswith(".conf"))
    conf_source = host_path(volume_mounts[conf_in_container])
    assert conf_source == ROOT / "deploy" / "redis" / "redis.conf"
    settings: dict[str, str] = {}
    for line in conf_source.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.strip().partition(" ")
            settings[key] = value.strip().strip('"')
    assert settings["appendonly"] == "yes"
    assert settings["appendfsync"] in {"everysec", "always"}
    assert settings["maxmemory-policy"] == "noeviction"
    data_dir = settings["dir"]
    assert data_dir in volume_mounts, f"{data_dir} is not mounted"
    assert volume_mounts[data_dir] in (compose.get("volumes") or {}), "data must live on a named volume"
    assert any("redis-cli" in part for part in redis_service["healthcheck"]["test"])
    assert "ports" not in redis_service, "Redis is not published to the host"
    # Its files hold secrets: the server runs with umask 0077, then the image's own entrypoint.
    entrypoint = redis_service["entrypoint"]
    assert entrypoint[:2] == ["sh", "-c"] and entrypoint[2].startswith("umask 0077 && ")
    assert "exec docker-entrypoint.sh" in entrypoint[2]


def test_prometheus_scrapes_every_metrics_port(services: dict[str, dict[str, Any]]) -> None:
    """Prometheus's static targets are exactly the gateway and every rules service's metrics port."""
    (name,) = [name for name, s in services.items() if str(s.get("image", "")).startswith("prom/prometheus:")]
    prometheus = services[name]
    config_path = host_path(mounts(prometheus)["/etc/prometheus/prometheus.yml"])
    assert "--config.file=/etc/prometheus/prometheus.yml" in prometheus["command"]
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    targets: set[str] = set()
    for job in config["scrape_configs"]:
        if job["job_name"].startswith("chaiwala"):
            assert job.get("metrics_path", "/metrics") == "/metrics"
            for static in job["static_configs"]:
                targets.update(static["targets"])
    expected = {
        f"{gw}:{port_of(environment_of(services[gw]), 'CHAIWALA_HTTP_PORT')}" for gw in running(services, "gateway")
    }
    expected |= {
        f"{svc}:{port_of(environment_of(services[svc]), 'CHAIWALA_METRICS_PORT')}"
        for svc in [*rules_services(services), *running(services, "conductor"), *running(services, "webhook"),
                    *running(services, "notify"), *running(services, "director"),
                    *running(services, "matchmaker")]
    }
    assert targets == expected


def test_grafana_is_provisioned(services: dict[str, dict[str, Any]]) -> None:
    """Grafana mounts the provisioning tree and the dashboards folder the provider points at."""
    (name,) = [name for name, s in services.items() if str(s.get("image", "")).startswith("grafana/grafana:")]
    grafana = services[name]
    volume_mounts = mounts(grafana)
    provisioning = host_path(volume_mounts["/etc/grafana/provisioning"])
    datasources = yaml.safe_load((provisioning / "datasources" / "prometheus.yml").read_text(encoding="utf-8"))
    (datasource,) = datasources["datasources"]
    prometheus_name = next(n for n, s in services.items() if str(s.get("image", "")).startswith("prom/prometheus:"))
    assert urlparse(datasource["url"]).hostname == prometheus_name
    providers = yaml.safe_load((provisioning / "dashboards" / "chaiwala.yml").read_text(encoding="utf-8"))
    (provider,) = providers["providers"]
    dashboards_dir = host_path(volume_mounts[provider["options"]["path"]])
    assert (dashboards_dir / "chaiwala.json").is_file()
    home = environment_of(grafana).get("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH", "")
    assert home.startswith(provider["options"]["path"])
    assert (dashboards_dir / Path(home).name).is_file()


# Service keys of the Compose specification that this file may use; a misspelt key is ignored or
# rejected by `docker compose`, so catch it here.
COMPOSE_SERVICE_KEYS = {
    "image", "build", "command", "entrypoint", "environment", "env_file", "ports", "expose", "volumes", "tmpfs",
    "depends_on", "healthcheck", "restart", "read_only", "security_opt", "cap_drop", "cap_add", "user",
    "deploy", "labels", "networks", "logging", "stop_grace_period", "init", "secrets", "ulimits",
}
HEALTHCHECK_KEYS = {"test", "interval", "timeout", "retries", "start_period", "start_interval", "disable"}


def test_compose_keys_are_known(compose: dict[str, Any], services: dict[str, dict[str, Any]]) -> None:
    """Only Compose-spec keys at the top level, in services and in health checks."""
    top_level = {key for key in compose if not key.startswith("x-")}
    assert top_level <= {"name", "services", "volumes", "networks", "configs", "secrets"}
    for name, service in services.items():
        assert set(service) <= COMPOSE_SERVICE_KEYS, f"{name}: {sorted(set(service) - COMPOSE_SERVICE_KEYS)}"
        assert set(service["healthcheck"]) <= HEALTHCHECK_KEYS, name


def test_redis_asks_a_password_from_a_secret_and_every_client_has_it(
    compose: dict[str, Any], services: dict[str, dict[str, Any]]
) -> None:
    """Redis requires the password of the ``redis_password`` secret (included from a private config
    file, never on a command line); every service with a REDIS_URL reads that secret and the master
    key ring's (issue #44); no credential is written in the file itself."""
    declared = compose["secrets"]
    assert set(declared) >= {"redis_password", "secret_keys"}
    for secret in declared.values():
        assert set(secret) == {"file"} and "var/" in secret["file"]  # outside the repository (var/ is ignored)
    (name,) = [name for name, s in services.items() if str(s.get("image", "")).startswith("redis:")]
    redis_service = services[name]
    assert "redis_password" in redis_service["secrets"]
    start = redis_service["entrypoint"][2]
    assert "requirepass" in start and "/run/secrets/redis_password" in start
    assert command_of(redis_service)[-2:] == ["--include", "/data/auth.conf"]
    assert "REDISCLI_AUTH" in redis_service["healthcheck"]["test"][1]
    clients = [svc for svc in services.values() if "REDIS_URL" in environment_of(svc)]
    assert len(clients) >= 7
    for service in clients:
        env = environment_of(service)
        assert urlparse(env["REDIS_URL"]).password is None  # the password comes from the secret
        assert env["CHAIWALA_REDIS_PASSWORD_FILE"] == "/run/secrets/redis_password"
        assert env["CHAIWALA_SECRET_KEYS_FILE"] == "/run/secrets/secret_keys"
        assert {"redis_password", "secret_keys"} <= set(service["secrets"])
    assert "requirepass " not in COMPOSE_PATH.read_text(encoding="utf-8").replace("requirepass %s", "")
