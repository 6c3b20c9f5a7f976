"""A small pure-Python kustomize renderer for the subset deploy/k8s uses (no kubectl needed).

Supported kustomization fields: ``resources`` (files and directories), ``patches`` (strategic-merge
patches from ``path``, with an optional ``target`` of kind/name/labelSelector), ``namespace``,
``labels`` (with ``includeSelectors`` and ``includeTemplates``), ``images`` and ``replicas``. Anything
else raises :class:`UnsupportedKustomization` so a test can never silently pass on a feature this
renderer ignores.

The strategic merge follows the Kubernetes patch-merge keys for the lists that matter here
(containers, env, ports, volumes, volumeMounts); other lists are replaced, maps are merged, ``null``
deletes a key; ``$patch`` directives are not supported.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

Resource = dict[str, Any]
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

SUPPORTED_FIELDS = frozenset(
    {
        "apiVersion",
        "kind",
        "resources",
        "patches",
        "namespace",
        "labels",
        "images",
        "replicas",
    }
)
CLUSTER_SCOPED_KINDS = frozenset({"Namespace", "ClusterRole", "ClusterRoleBinding", "PriorityClass", "StorageClass"})
WORKLOAD_KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"})
# List field name -> merge key (Kubernetes patchMergeKey).
MERGE_KEYS: dict[str, str] = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "imagePullSecrets": "name",
}


class UnsupportedKustomization(ValueError):
    """The kustomization uses a feature this renderer does not implement."""


def load_documents(path: Path) -> list[Resource]:
    """Every non-empty YAML document in ``path``."""
    with path.open(encoding="utf-8") as handle:
        return [doc for doc in yaml.load_all(handle, Loader=_LOADER) if doc]


def render(directory: Path | str) -> list[Resource]:
    """Render the kustomization in ``directory`` (recursively through its resources)."""
    directory = Path(directory)
    kustomization_path = directory / "kustomization.yaml"
    kustomization: dict[str, Any] = yaml.load(kustomization_path.read_text(encoding="utf-8"), Loader=_LOADER) or {}
    unknown = set(kustomization) - SUPPORTED_FIELDS
    if unknown:
        raise UnsupportedKustomization(f"{kustomization_path}: unsupported fields {sorted(unknown)}")

    resources: list[Resource] = []
    for entry in kustomization.get("resources", []):
        path = directory / entry
        resources.extend(render(path) if path.is_dir() else load_documents(path))
    _check_unique(resources, kustomization_path)

    for patch in kustomization.get("patches", []):
        _apply_patch(resources, patch, directory)

    if "namespace" in kustomization:
        for resource in resources:
            if resource["kind"] not in CLUSTER_SCOPED_KINDS:
                resource["metadata"]["namespace"] = kustomization["namespace"]
    for label_set in kustomization.get("labels", []):
        _apply_labels(
            resources,
            label_set.get("pairs", {}),
            selectors=bool(label_set.get("includeSelectors", False)),
            templates=bool(label_set.get("includeTemplates", False)),
        )
    for replica in kustomization.get("replicas", []):
        matched = [r for r in resources if r["kind"] in WORKLOAD_KINDS and r["metadata"]["name"] == replica["name"]]
        if not matched:
            raise UnsupportedKustomization(f"replicas: no workload named {replica['name']!r}")
        for resource in matched:
            resource["spec"]["replicas"] = replica["count"]
    for image in kustomization.get("images", []):
        _apply_image(resources, image)
    return resources


def _check_unique(resources: list[Resource], where: Path) -> None:
    seen: set[tuple[str, str, str]] = set()
    for resource in resources:
        key = (resource["kind"], resource["metadata"].get("namespace", ""), resource["metadata"]["name"])
        if key in seen:
            raise UnsupportedKustomization(f"{where}: duplicate resource {key}")
        seen.add(key)


def _pod_template(resource: Resource) -> dict[str, Any] | None:
    if resource["kind"] in WORKLOAD_KINDS:
        template: dict[str, Any] = resource.setdefault("spec", {}).setdefault("template", {})
        return template
    return None


def _matches_selector(resource: Resource, selector: str) -> bool:
    labels = resource["metadata"].get("labels", {})
    for requirement in selector.split(","):
        if "!=" in requirement:
            key, value = requirement.split("!=", 1)
            if labels.get(key.strip()) == value.strip():
                return False
        elif "=" in requirement:
            key, value = requirement.split("=", 1)
            if labels.get(key.strip().rstrip("=")) != value.strip().lstrip("="):
                return False
        else:
            raise UnsupportedKustomization(f"label selector {selector!r}")
    return True


def _targets(resources: list[Resource], target: dict[str, Any]) -> list[int]:
    unknown = set(target) - {"kind", "name", "labelSelector", "group", "version"}
    if unknown:
        raise UnsupportedKustomization(f"patch target fields {sorted(unknown)}")
    found = []
    for index, resource in enumerate(resources):
        if "kind" in target and resource["kind"] != target["kind"]:
            continue
        if "name" in target and resource["metadata"]["name"] != target["name"]:
            continue
        if "labelSelector" in target and not _matches_selector(resource, target["labelSelector"]):
            continue
        found.append(index)
    return found


def _apply_patch(resources: list[Resource], patch: dict[str, Any], directory: Path) -> None:
    if "path" not in patch:
        raise UnsupportedKustomization(f"patch without path: {patch}")
    documents = load_documents(directory / patch["path"])
    for document in documents:
        if not isinstance(document, dict):
            raise UnsupportedKustomization("JSON 6902 patches are not supported")
        if "target" in patch:
            indexes = _targets(resources, patch["target"])
        else:
            indexes = _targets(resources, {"kind": document["kind"], "name": document["metadata"]["name"]})
        if not indexes:
            raise UnsupportedKustomization(f"patch {patch} matches no resource")
        for index in indexes:
            original = resources[index]
            merged = strategic_merge(original, document)
            # With a target, the patch's own name is ignored; the resource keeps its identity.
            merged["metadata"]["name"] = original["metadata"]["name"]
            if "namespace" in original["metadata"]:
                merged["metadata"]["namespace"] = original["metadata"]["namespace"]
            resources[index] = merged


def strategic_merge(original: Any, patch: Any, field: str = "") -> Any:
    """Merge ``patch`` into ``original`` following the strategic-merge rules described above."""
    if isinstance(original, dict) and isinstance(patch, dict):
        result = copy.deepcopy(original)
        for key, value in patch.items():
            if key.startswith("$"):
                raise UnsupportedKustomization(f"directive {key}")
            if value is None:
                result.pop(key, None)
            elif key in result:
                result[key] = strategic_merge(result[key], value, key)
            else:
                result[key] = copy.deepcopy(value)
        return result
    if isinstance(original, list) and isinstance(patch, list):
        merge_key = MERGE_KEYS.get(field)
        if field == "ports" and all(isinstance(item, dict) for item in original + patch):
            merge_key = "containerPort" if any("containerPort" in item for item in original + patch) else "port"
        if merge_key is None:
            return copy.deepcopy(patch)
        result_list = copy.deepcopy(original)
        for item in patch:
            position = next((i for i, old in enumerate(result_list) if old.get(merge_key) == item.get(merge_key)), None)
            if position is None:
                result_list.append(copy.deepcopy(item))
            else:
                result_list[position] = strategic_merge(result_list[position], item)
        return result_list
    return copy.deepcopy(patch)


def _apply_labels(resources: list[Resource], pairs: dict[str, str], *, selectors: bool, templates: bool) -> None:
    for resource in resources:
        resource["metadata"].setdefault("labels", {}).update(pairs)
        template = _pod_template(resource)
        if template is not None and (templates or selectors):
            template.setdefault("metadata", {}).setdefault("labels", {}).update(pairs)
        if not selectors:
            continue
        spec = resource.get("spec", {})
        if resource["kind"] == "Service":
            spec.setdefault("selector", {}).update(pairs)
        elif resource["kind"] in WORKLOAD_KINDS or resource["kind"] == "PodDisruptionBudget":
            spec.setdefault("selector", {}).setdefault("matchLabels", {}).update(pairs)


def _split_image(image: str) -> tuple[str, str]:
    """(name, suffix) where suffix is ``:tag``, ``@digest`` or empty."""
    if "@" in image:
        name, digest = image.split("@", 1)
        return name, "@" + digest
    slash = image.rfind("/")
    colon = image.rfind(":")
    if colon > slash:
        return image[:colon], image[colon:]
    return image, ""


def _apply_image(resources: list[Resource], image: dict[str, str]) -> None:
    for resource in resources:
        template = _pod_template(resource)
        if template is None:
            continue
        pod_spec = template.get("spec", {})
        for container in pod_spec.get("containers", []) + pod_spec.get("initContainers", []):
            name, suffix = _split_image(container.get("image", ""))
            if name != image["name"]:
                continue
            new_name = image.get("newName", name)
            if "digest" in image:
                suffix = "@" + image["digest"]
            elif "newTag" in image:
                suffix = ":" + str(image["newTag"])
            container["image"] = new_name + suffix


def by_kind(resources: list[Resource], kind: str) -> dict[str, Resource]:
    """The resources of one kind, by name."""
    return {r["metadata"]["name"]: r for r in resources if r["kind"] == kind}
