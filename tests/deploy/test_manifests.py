"""deploy/compose.yaml, deploy/k8s/ and the HAProxy configs, as their tools read them.

No container engine or cluster runs here: the YAML is parsed and cross-checked (every
environment variable is one the server reads, ports, probes, persistence, drain time),
and each HAProxy config is checked by HAProxy itself (`haproxy -c`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


def env_names_read_by_the_server() -> set[str]:
    """Every BATTLEHALL_* name (and REDIS_URL) the server's code spells out."""
    names = set()
    for path in (ROOT / "battlehall").rglob("*.py"):
        names |= set(re.findall(r"""["'](BATTLEHALL_[A-Z_]+|REDIS_URL)["']""", path.read_text()))
    return names


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def k8s() -> list[dict]:
    docs = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


def k8s_object(kind: str, name: str) -> dict:
    found = [d for d in k8s() if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"{kind}/{name}"
    return found[0]


def haproxy_check(path: Path) -> str:
    """`haproxy -c` of a config: it must be valid; a name that does not resolve on this
    machine (a compose service, a Kubernetes Service) is the only warning allowed."""
    run = subprocess.run([HAPROXY, "-c", "-f", str(path)], capture_output=True, text=True)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    for line in out.splitlines():
        if "[WARNING]" in line:
            assert "could not resolve address" in line, line
    return out


def nodes_of_compose() -> dict[str, dict]:
    return {name: s for name, s in compose()["services"].items() if "BATTLEHALL_NODE_ID" in s.get("environment", {})}


# -- compose ------------------------------------------------------------------------------


def test_compose_runs_three_nodes_redis_with_aof_and_haproxy():
    services = compose()["services"]
    nodes = nodes_of_compose()
    assert len(nodes) == 3
    ids = [s["environment"]["BATTLEHALL_NODE_ID"] for s in nodes.values()]
    assert len(set(ids)) == 3
    for node in nodes.values():
        env = node["environment"]
        assert env["REDIS_URL"].startswith("redis://redis:6379")
        assert re.fullmatch(r"\$\{BATTLEHALL_PUBLIC_URL:-ws://localhost:8000\}/node/" + re.escape(env["BATTLEHALL_NODE_ID"]),
                            env["BATTLEHALL_NODE_URL"]), env["BATTLEHALL_NODE_URL"]
        assert env["BATTLEHALL_MAX_CONNECTIONS_PER_IP"] == "0"  # HAProxy caps per client instead
        assert env["BATTLEHALL_API_KEY"].startswith("${BATTLEHALL_API_KEY:?"), "the key must come from deploy/.env, required"
        assert node["restart"] in ("always", "unless-stopped", "on-failure")
        assert node["depends_on"]["redis"]["condition"] == "service_healthy"
        assert int(node["stop_grace_period"].rstrip("s")) >= 30  # time to drain
    redis = services["redis"]
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--appendfsync") + 1] in ("always", "${REDIS_APPENDFSYNC:-always}")
    assert any(v.endswith(":/data") for v in redis["volumes"])
    assert redis["restart"] == "unless-stopped"
    lb = services["haproxy"]
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in lb["volumes"]
    assert lb["ports"] == ["8000:8000"] and lb["restart"] == "unless-stopped"
    assert set(lb["depends_on"]) == set(nodes)
    example = (DEPLOY / ".env.example").read_text()
    assert re.search(r"^BATTLEHALL_API_KEY=replace-me", example, re.M), "only a placeholder is committed"
    assert "deploy/.env" in (ROOT / ".gitignore").read_text().split()


def test_compose_haproxy_config_names_every_node_and_haproxy_accepts_it():
    config = (DEPLOY / "haproxy.cfg").read_text()
    haproxy_check(DEPLOY / "haproxy.cfg")
    for service, node in nodes_of_compose().items():
        node_id = node["environment"]["BATTLEHALL_NODE_ID"]
        # In both backends, at the service's address, and pinned by its node id.
        assert len(re.findall(rf"^\s+server {node_id} {service}:8000$", config, re.M)) == 2, node_id
        assert re.search(rf"^\s+use-server {node_id} if {{ var\(req.node\) -m str {node_id} }}$", config, re.M)
    assert re.search(r"^\s+bind :8000$", config, re.M)
    assert "balance uri depth 2" in config and "hash-type consistent" in config
    assert config.count("option httpchk GET /readyz") == 2


def test_every_variable_in_compose_and_k8s_is_one_the_server_reads():
    known = env_names_read_by_the_server()
    given = set()
    for node in nodes_of_compose().values():
        given |= set(node["environment"])
    for doc in k8s():
        for container in doc.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            if container["name"] == "battlehall":
                given |= {e["name"] for e in container["env"]}
    assert {"BATTLEHALL_NODE_ID", "BATTLEHALL_NODE_URL", "REDIS_URL", "BATTLEHALL_API_KEY"} <= given
    assert given <= known, f"not read by the server: {sorted(given - known)}"


# -- Kubernetes --------------------------------------------------------------------------


def test_k8s_nodes_take_their_id_from_the_pod_and_drain_before_they_stop():
    nodes = k8s_object("StatefulSet", "battlehall")
    pod = nodes["spec"]["template"]["spec"]
    container, = pod["containers"]
    env = {e["name"]: e for e in container["env"]}
    assert env["BATTLEHALL_NODE_ID"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    assert env["BATTLEHALL_NODE_URL"]["value"].startswith(("ws://", "wss://"))
    assert env["BATTLEHALL_NODE_URL"]["value"].endswith("/node/$(BATTLEHALL_NODE_ID)")
    names = [e["name"] for e in container["env"]]  # $(VAR) only expands variables defined before it
    assert names.index("BATTLEHALL_NODE_ID") < names.index("BATTLEHALL_NODE_URL")
    assert env["BATTLEHALL_API_KEY"]["valueFrom"]["secretKeyRef"] == {"name": "battlehall", "key": "api-key"}
    assert env["REDIS_URL"]["value"] == "redis://redis-0.redis:6379/0"
    port, = container["ports"]
    assert port["containerPort"] == 8000
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": port["name"]}
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": port["name"]}
    assert container["lifecycle"]["preStop"]["exec"]["command"][0] == "sleep"
    assert pod["terminationGracePeriodSeconds"] >= 30
    assert pod["securityContext"]["runAsNonRoot"] is True
    labels = nodes["spec"]["template"]["metadata"]["labels"]
    assert nodes["spec"]["selector"]["matchLabels"] == labels
    headless = k8s_object("Service", nodes["spec"]["serviceName"])
    assert headless["spec"]["clusterIP"] == "None" and headless["spec"]["selector"] == labels
    assert headless["spec"]["ports"][0]["targetPort"] in (port["name"], port["containerPort"])


def test_k8s_redis_keeps_its_append_only_file_on_a_volume():
    redis = k8s_object("StatefulSet", "redis")
    container, = redis["spec"]["template"]["spec"]["containers"]
    args = container["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    assert args[args.index("--appendfsync") + 1] in ("always", "everysec")
    claim, = redis["spec"]["volumeClaimTemplates"]
    mount, = container["volumeMounts"]
    assert mount["name"] == claim["metadata"]["name"] and mount["mountPath"] == args[args.index("--dir") + 1]
    assert container["readinessProbe"]["exec"]["command"] == ["redis-cli", "ping"]
    service = k8s_object("Service", "redis")
    assert service["spec"]["selector"] == redis["spec"]["template"]["metadata"]["labels"]
    assert redis["spec"]["serviceName"] == "redis"  # redis-0.redis, the nodes' REDIS_URL


def test_k8s_lets_only_the_nodes_reach_redis():
    """Redis is the trust boundary: write access to it is control of the nodes."""
    policy = k8s_object("NetworkPolicy", "redis-only-from-nodes")
    redis_labels = k8s_object("StatefulSet", "redis")["spec"]["template"]["metadata"]["labels"]
    node_labels = k8s_object("StatefulSet", "battlehall")["spec"]["template"]["metadata"]["labels"]
    assert policy["spec"]["podSelector"]["matchLabels"] == redis_labels
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    rule, = policy["spec"]["ingress"]
    source, = rule["from"]
    assert source == {"podSelector": {"matchLabels": node_labels}}
    assert rule["ports"] == [{"protocol": "TCP", "port": 6379}]


def test_k8s_haproxy_finds_the_nodes_in_the_headless_service():
    kustomization = yaml.safe_load((DEPLOY / "k8s/kustomization.yaml").read_text())
    assert sorted(kustomization["resources"]) == sorted(p.name for p in (DEPLOY / "k8s").glob("*.yaml")
                                                        if p.name != "kustomization.yaml")
    generator, = kustomization["configMapGenerator"]
    lb = k8s_object("Deployment", "haproxy")
    volume, = lb["spec"]["template"]["spec"]["volumes"]
    assert volume["configMap"]["name"] == generator["name"]
    config_path = DEPLOY / "k8s" / generator["files"][0]
    haproxy_check(config_path)
    config = config_path.read_text()
    namespace = kustomization["namespace"]
    headless = k8s_object("StatefulSet", "battlehall")["spec"]["serviceName"]
    fqdn = f"{headless}.{namespace}.svc.cluster.local"
    assert config.count(f"{fqdn}:8000") == 2 and f".{fqdn})" in config
    assert "acl pinned path_reg ^/node/battlehall-[0-9]+/" in config  # only the StatefulSet's pods
    service = k8s_object("Service", "battlehall")
    assert service["spec"]["selector"] == lb["spec"]["template"]["metadata"]["labels"]


def test_local_cluster_config_with_a_check_timeout_is_one_haproxy_accepts(tmp_path):
    """deploy/local-cluster --check-timeout (bench/nodes.py --cpu-share gives nodes
    saturated at their share 5 s to answer a health check)."""
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.SourceFileLoader("local_cluster", str(DEPLOY / "local-cluster"))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("local_cluster", loader))
    loader.exec_module(module)
    nodes = [("node-1", "127.0.0.1:8001"), ("node-2", "127.0.0.1:8002")]
    assert "timeout check" not in module.haproxy_config(nodes, "127.0.0.1:8080")
    config = module.haproxy_config(nodes, "127.0.0.1:8080", check_timeout_s=5)
    assert re.search(r"^\s+timeout check 5s$", config, re.M)
    (tmp_path / "haproxy.cfg").write_text(config)
    haproxy_check(tmp_path / "haproxy.cfg")
