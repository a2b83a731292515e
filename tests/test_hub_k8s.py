"""The class past one machine: the Zero to JupyterHub configuration in hub/k8s (issue 38, item 5).

Kubernetes does not run here, so this checks what can be checked without a cluster: the files
parse; every value the chart is given is a key of the pinned chart's values schema
(hub/k8s/schema-excerpt.yaml, which cites it) with the schema's type; the image installs the
lock and nothing else; the exchange is mounted where every configuration looks for it, each
student's pod mounting only that student's own folders of it (tests/test_exchange_by_account.py
runs nbgrader through those mounts); and the formgrader service, its role and the groups are the
ones grader/hub/roster.py and the one-machine hub use. Each check returns the problems it finds,
and each is shown to find one in a copy of the configuration changed on purpose.
"""

from __future__ import annotations

import copy
import os
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
import yaml
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from grader.hub.exchange import FEEDBACK_BY_ACCOUNT, INBOUND_BY_ACCOUNT
from grader.hub.roster import FORMGRADER_SERVICE, GRADERS_GROUP, STUDENTS_GROUP

ROOT = Path(__file__).resolve().parents[1]
K8S = ROOT / "hub" / "k8s"
LOCK = ROOT / "requirements.lock"
ACCESS_SCOPE = f"access:services!service={FORMGRADER_SERVICE}"


def load(name: str) -> dict:
    """One YAML document of hub/k8s."""
    return yaml.safe_load((K8S / name).read_text())


def load_all(name: str) -> list[dict]:
    """The documents of a multi-document manifest of hub/k8s."""
    return [doc for doc in yaml.safe_load_all((K8S / name).read_text()) if doc]


def manifest(docs: list[dict], kind: str, name: str) -> dict:
    """The one object of that kind and name (KeyError naming both when there is none)."""
    for doc in docs:
        if doc["kind"] == kind and doc["metadata"]["name"] == name:
            return doc
    raise KeyError(f"no {kind} {name!r}")


def only_container(deployment: dict) -> dict:
    """The container of a one-container Deployment."""
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return container


def env_value(container: dict, name: str) -> str | None:
    """A literal environment variable of a container (None when unset or not literal)."""
    return next((e.get("value") for e in container.get("env", []) if e["name"] == name), None)


def problems_after(change: Callable[[dict], object],
                   check: Callable[[dict], list[str]]) -> list[str]:
    """What a check finds in a copy of hub/k8s/values.yaml changed on purpose."""
    values = copy.deepcopy(load("values.yaml"))
    change(values)
    return check(values)


# --- the chart's values against the pinned chart's schema -------------------------------------

def schema_problems(values: dict, schema: dict) -> list[str]:
    """Every value the schema does not allow: an unknown key, a wrong type, a missing key."""
    validator = jsonschema.Draft7Validator(schema)
    return [f"{'.'.join(map(str, e.absolute_path)) or '<top>'}: {e.message}"
            for e in validator.iter_errors(values)]


def test_values_and_pin_parse():
    values, pin = load("values.yaml"), load("pin.yaml")
    assert pin["chart"] == "jupyterhub"
    assert re.fullmatch(r"4\.\d+\.\d+", pin["version"]), "a released 4.x chart, not a range"
    assert {"hub", "proxy", "singleuser", "cull"} <= values.keys()


def test_every_value_is_a_key_of_the_pinned_chart_schema():
    assert schema_problems(load("values.yaml"), load("schema-excerpt.yaml")) == []


@pytest.mark.parametrize("change, expected", [
    (lambda v: v["singleuser"]["storage"].update(extraVolume=[]), "extraVolume"),
    (lambda v: v["cull"].update(timeout="1h"), "cull.timeout"),
    (lambda v: v["hub"].update(loadGroups={}), "loadGroups"),
    (lambda v: v["proxy"]["service"].update(type="Ingress"), "proxy.service.type"),
])
def test_schema_check_finds_a_key_or_type_the_chart_does_not_have(change, expected):
    problems = problems_after(change, lambda v: schema_problems(v, load("schema-excerpt.yaml")))
    assert any(expected in p for p in problems), problems


def test_schema_excerpt_cites_its_source_and_the_pinned_version_is_the_one_installed():
    excerpt = (K8S / "schema-excerpt.yaml").read_text()
    assert "jupyterhub/zero-to-jupyterhub-k8s" in excerpt
    assert re.search(r"commit\s+[0-9a-f]{40}", excerpt)
    version = load("pin.yaml")["version"]
    assert f"pinned is {version}" in excerpt
    installs = [(K8S / "values.yaml").read_text(), (ROOT / "README.md").read_text()]
    for text in installs:
        assert re.findall(r"jupyterhub/jupyterhub --version (\S+)", text) == [version]


# --- the image: the lock, exactly ----------------------------------------------------------------

def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """(instruction, arguments) of each Dockerfile line, continuation lines joined."""
    joined = re.sub(r"\\\n", " ", text)
    return [tuple(line.strip().split(None, 1)) for line in joined.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def pip_installs(text: str) -> list[list[str]]:
    """The arguments after ``pip install`` of every RUN of the Dockerfile."""
    installs = []
    for instruction, arguments in dockerfile_instructions(text):
        if instruction != "RUN":
            continue
        for command in re.split(r"&&|;", arguments):
            words = shlex.split(command)
            if "pip" in words and "install" in words[words.index("pip"):]:
                installs.append(words[words.index("install", words.index("pip")) + 1:])
    return installs


def image_problems(text: str) -> list[str]:
    """What makes the image's environment other than the lock plus the course, unresolved."""
    copies = {args.split()[-1]: args.split()[0] for instruction, args
              in dockerfile_instructions(text) if instruction == "COPY"}
    lock_in_image = next((dest for dest, src in copies.items() if src == "requirements.lock"),
                         None)
    installs = pip_installs(text)
    problems = [] if lock_in_image else ["requirements.lock is not copied into the image"]
    lock_installs = [i for i in installs if "-r" in i]
    if [i[i.index("-r") + 1] for i in lock_installs] != [lock_in_image]:
        problems.append(f"the lock is not installed exactly once from {lock_in_image}")
    for words in installs:
        if "--no-deps" not in words:
            problems.append(f"pip install {' '.join(words)} resolves dependencies itself")
        named = [w for w in words if not w.startswith("-") and w not in
                 (lock_in_image, "/src")]
        if named:
            problems.append(f"pip install {' '.join(words)} adds {named} beyond the lock")
    if not any("/src" in words for words in installs):
        problems.append("the course itself is not installed from the checkout")
    return problems


def lock_pins() -> dict[str, str]:
    """The lock's pins, name to version (uv's ``name==version`` lines)."""
    return dict(re.findall(r"^([A-Za-z0-9._-]+)==(\S+)", LOCK.read_text(), re.MULTILINE))


def test_image_installs_exactly_the_lock_and_the_course():
    assert image_problems((K8S / "Dockerfile").read_text()) == []
    # The lock leaves rfc3987-syntax out (`make lock`), so an image of the lock has none either.
    assert "rfc3987-syntax" not in lock_pins()
    assert lock_pins()["jupyterhub"].startswith("6."), "README's versions paragraph"


@pytest.mark.parametrize("change, expected", [
    (lambda t: t.replace("--no-deps -r", "-r"), "resolves dependencies"),
    (lambda t: t + "RUN pip install --no-deps requests\n", "beyond the lock"),
    (lambda t: t.replace("COPY requirements.lock", "COPY requirements.txt"), "not copied"),
    (lambda t: t.replace("--no-build-isolation /src", "--no-build-isolation mllib"),
     "not installed from the checkout"),
])
def test_image_check_finds_an_environment_other_than_the_lock(change, expected):
    problems = image_problems(change((K8S / "Dockerfile").read_text()))
    assert any(expected in p for p in problems), problems


# --- the exchange: one path everywhere, each student's own folders --------------------------------

COURSE_ID = "ml-course"  # grader/nbgrader_config.py and hub/student's CourseDirectory.course_id
# What each student's pod mounts of the exchange volume at <exchange>/ml-course/<part>: the
# volume's folder and whether it is read-only. {unescaped_username} is the hub user's name as it
# is (kubespawner/spawner.py, _expand_user_properties), the student's nbgrader id.
STUDENT_PARTS = {
    "outbound": (f"{COURSE_ID}/outbound", True),
    "inbound": (f"{COURSE_ID}/{INBOUND_BY_ACCOUNT}/{{unescaped_username}}", False),
    "feedback": (f"{COURSE_ID}/{FEEDBACK_BY_ACCOUNT}/{{unescaped_username}}", True),
}
# The fields of a Kubernetes VolumeMount (Kubernetes API reference, "Container" v1 core,
# volumeMounts: name, mountPath, subPath, subPathExpr, readOnly, recursiveReadOnly,
# mountPropagation): the chart's schema leaves extraVolumeMounts' items unchecked.
VOLUME_MOUNT_FIELDS = {"name", "mountPath", "subPath", "subPathExpr", "readOnly",
                       "recursiveReadOnly", "mountPropagation"}


def student_exchange_mounts(values: dict) -> list[dict]:
    """The students' mounts of the exchange's volume (values.yaml's extraVolumeMounts)."""
    storage = values["singleuser"]["storage"]
    (claim,) = [v for v in storage["extraVolumes"]
                if v["persistentVolumeClaim"]["claimName"] == "nbgrader-exchange"]
    return [m for m in storage["extraVolumeMounts"] if m["name"] == claim["name"]]


def student_exchange_root(values: dict) -> str:
    """The exchange root of a student's pod: where its mounts hang ("" when they disagree)."""
    roots = {m["mountPath"].rsplit(f"/{COURSE_ID}/", 1)[0]
             for m in student_exchange_mounts(values)}
    return roots.pop() if len(roots) == 1 else ""


def student_mount_problems(values: dict) -> list[str]:
    """Where a student's pod would see more of the exchange than its own, or could write into
    what is read-only to it."""
    root = student_exchange_root(values)
    mounts = {m["mountPath"].removeprefix(f"{root}/{COURSE_ID}/"): m
              for m in student_exchange_mounts(values)}
    problems = [] if root else ["the students' exchange mounts have no one root"]
    if set(mounts) != set(STUDENT_PARTS):
        problems.append(f"a student's pod mounts {sorted(mounts)}, not {sorted(STUDENT_PARTS)}")
    for part, (sub_path, read_only) in STUDENT_PARTS.items():
        mount = mounts.get(part, {})
        if mount.get("subPath") != sub_path:
            problems.append(f"{part} is the volume's {mount.get('subPath')!r}, not {sub_path!r}")
        if mount.get("readOnly", False) != read_only:
            problems.append(f"{part} is {'writable' if read_only else 'read-only'}")
        if set(mount) - VOLUME_MOUNT_FIELDS:
            problems.append(f"{part}: {sorted(set(mount) - VOLUME_MOUNT_FIELDS)} are not "
                            "fields of a VolumeMount")
    return problems


def test_each_student_mounts_only_their_own_folders_of_the_exchange():
    assert student_mount_problems(load("values.yaml")) == []


def one_mount(part: str) -> Callable[[dict], dict]:
    """A change that gets the student's mount of ``part``."""
    return lambda v: next(m for m in student_exchange_mounts(v)
                          if m["mountPath"].endswith(f"/{COURSE_ID}/{part}"))


@pytest.mark.parametrize("change, expected", [
    (lambda v: one_mount("inbound")(v).update(
        subPath=f"{COURSE_ID}/{INBOUND_BY_ACCOUNT}/{{username}}"), "inbound is the volume's"),
    (lambda v: one_mount("feedback")(v).update(subPath=f"{COURSE_ID}/{FEEDBACK_BY_ACCOUNT}"),
     "feedback is the volume's"),
    (lambda v: one_mount("feedback")(v).pop("readOnly"), "feedback is writable"),
    (lambda v: one_mount("outbound")(v).update(readonly=True), "not fields of a VolumeMount"),
    (lambda v: v["singleuser"]["storage"]["extraVolumeMounts"].append(
        {"name": "nbgrader-exchange", "mountPath": f"/srv/{COURSE_ID}/all"}), "no one root"),
])
def test_mount_check_finds_a_pod_that_sees_more_than_its_own(change, expected):
    problems = problems_after(change, student_mount_problems)
    assert any(expected in p for p in problems), problems


def exchange_paths(values: dict, formgrader: list[dict], dockerfile: str) -> dict[str, str]:
    """Where each piece of the configuration puts or looks for nbgrader's exchange."""
    deployment = manifest(formgrader, "Deployment", FORMGRADER_SERVICE)
    container = only_container(deployment)
    volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
    (grader_mount,) = [m["mountPath"] for m in container["volumeMounts"]
                       if volumes[m["name"]].get("persistentVolumeClaim", {}).get("claimName")
                       == "nbgrader-exchange"]
    image_env = re.search(r"COURSE_EXCHANGE=(\S+)", dockerfile)
    image_root = re.search(r"mkdir -p (\S+) && chmod 1777 \1", dockerfile)
    return {
        "students' exchange root": student_exchange_root(values),
        "students' COURSE_EXCHANGE": values["singleuser"]["extraEnv"]["COURSE_EXCHANGE"],
        "image's COURSE_EXCHANGE": image_env.group(1) if image_env else "",
        "image's folder of mode 1777": image_root.group(1) if image_root else "",
        "formgrader's mount": grader_mount,
        "formgrader's COURSE_EXCHANGE": env_value(container, "COURSE_EXCHANGE"),
    }


def exchange_problems(paths: dict[str, str]) -> list[str]:
    """Each place whose exchange is not the students' exchange root."""
    root = paths["students' exchange root"]
    return [f"{where} is {path!r}, not {root!r}" for where, path in paths.items()
            if path != root]


def loaded_config(config_file: Path, environment: dict[str, str]) -> Config:
    """The traitlets configuration a config file gives with ``environment`` set."""
    before = {name: os.environ.get(name) for name in environment}
    os.environ.update(environment)
    try:
        return PyFileConfigLoader(config_file.name, path=str(config_file.parent)).load_config()
    finally:
        for name, value in before.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


def test_exchange_is_mounted_where_every_configuration_looks(tmp_path):
    paths = exchange_paths(load("values.yaml"), load_all("formgrader.yaml"),
                           (K8S / "Dockerfile").read_text())
    assert exchange_problems(paths) == []
    root = paths["students' exchange root"]
    # The students' nbgrader (hub/student, in the image) and the formgrader's (grader/, which
    # the formgrader's JUPYTER_CONFIG_PATH names) both take the exchange from COURSE_EXCHANGE.
    student = loaded_config(ROOT / "hub" / "student" / "nbgrader_config.py",
                            {"COURSE_EXCHANGE": root})
    assert student.Exchange.root == root and student.CourseDirectory.course_id == COURSE_ID
    container = only_container(manifest(load_all("formgrader.yaml"), "Deployment",
                                        FORMGRADER_SERVICE))
    assert env_value(container, "JUPYTER_CONFIG_PATH") == "/srv/course/grader"
    grader_exchange = str(tmp_path / "exchange")  # the course config makes the folder
    grader = loaded_config(ROOT / "grader" / "nbgrader_config.py", {
        "COURSE_EXCHANGE": grader_exchange,
        "COURSE_EXCHANGE_IDENTITY": env_value(container, "COURSE_EXCHANGE_IDENTITY") or ""})
    assert grader.Exchange.root == grader_exchange and grader.CourseDirectory.course_id \
        == COURSE_ID
    # The formgrader tells a submission's student by its account folder (grader/hub/exchange.py)
    assert grader.ExchangeIdentity.identity == "account-folder"
    # The NFS volume is shared: ReadWriteMany.
    claim = manifest(load_all("exchange.yaml"), "PersistentVolumeClaim", "nbgrader-exchange")
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]


def test_exchange_check_finds_a_pod_that_looks_elsewhere():
    formgrader = copy.deepcopy(load_all("formgrader.yaml"))
    container = only_container(manifest(formgrader, "Deployment", FORMGRADER_SERVICE))
    for mount in container["volumeMounts"]:
        if mount["name"] == "nbgrader-exchange":
            mount["mountPath"] = "/srv/nbgrader/exchange"
    paths = exchange_paths(load("values.yaml"), formgrader, (K8S / "Dockerfile").read_text())
    assert exchange_problems(paths) == [
        "formgrader's mount is '/srv/nbgrader/exchange', not "
        "'/usr/local/share/nbgrader/exchange'"]


# --- the formgrader service, its role, the groups -------------------------------------------------

def one_machine_hub() -> dict:
    """The formgrader service and the graders' role of hub/jupyterhub_config.py (the
    one-machine hub), as loaded (its idle culler is the chart's own ``cull`` here)."""
    config = PyFileConfigLoader("jupyterhub_config.py", path=str(ROOT / "hub")).load_config()
    (service,) = [s for s in config.JupyterHub.services if s["name"] == FORMGRADER_SERVICE]
    (role,) = [r for r in config.JupyterHub.load_roles if GRADERS_GROUP in r.get("groups", [])]
    return {"service": service, "role": role}


def service_problems(values: dict, formgrader: list[dict]) -> list[str]:
    """Where the chart's service, role, groups or the formgrader's pod differ from the course's."""
    hub = values["hub"]
    problems = []
    if set(hub["services"]) != {FORMGRADER_SERVICE}:
        problems.append(f"hub.services is {sorted(hub['services'])}, not [{FORMGRADER_SERVICE}]")
    one_machine = one_machine_hub()
    (role_name, role), = hub["loadRoles"].items()
    wanted_role = {k: v for k, v in one_machine["role"].items() if k != "name"}
    if role_name != one_machine["role"]["name"] or role != wanted_role:
        problems.append(f"role {role_name} {role} is not hub/jupyterhub_config.py's")
    if role.get("groups") != [GRADERS_GROUP] or role.get("scopes") != [ACCESS_SCOPE]:
        problems.append(f"the role does not give {GRADERS_GROUP} {ACCESS_SCOPE}")
    groups = set(hub["config"]["JupyterHub"]["load_groups"])
    if groups != {STUDENTS_GROUP, GRADERS_GROUP}:
        problems.append(f"groups {sorted(groups)} are not grader/hub/roster.py's")
    service = hub["services"].get(FORMGRADER_SERVICE, {})
    if service.get("oauth_no_confirm") != one_machine["service"]["oauth_no_confirm"]:
        problems.append("oauth_no_confirm differs from the one-machine hub's")
    k8s_service = manifest(formgrader, "Service", FORMGRADER_SERVICE)
    port = k8s_service["spec"]["ports"][0]["port"]
    if service.get("url") != f"http://{FORMGRADER_SERVICE}:{port}":
        problems.append(f"the service url {service.get('url')} is not the formgrader's Service")
    container = only_container(manifest(formgrader, "Deployment", FORMGRADER_SERVICE))
    token = next(e for e in container["env"] if e["name"] == "JUPYTERHUB_API_TOKEN")
    expected = {
        "JUPYTERHUB_SERVICE_NAME": FORMGRADER_SERVICE,
        "JUPYTERHUB_SERVICE_PREFIX": f"/services/{FORMGRADER_SERVICE}/",
        "JUPYTERHUB_CLIENT_ID": f"service-{FORMGRADER_SERVICE}",
        "JUPYTERHUB_OAUTH_ACCESS_SCOPES": f'["{ACCESS_SCOPE}"]',
    }
    problems += [f"{name} is {env_value(container, name)!r}, not {value!r}"
                 for name, value in expected.items() if env_value(container, name) != value]
    if token["valueFrom"]["secretKeyRef"]["key"] != f"hub.services.{FORMGRADER_SERVICE}.apiToken":
        problems.append("the API token is not the chart's token of this service")
    if container["command"][:1] != one_machine["service"]["command"][0].split("/")[-1:]:
        problems.append("the formgrader does not run the one-machine hub's command")
    return problems


def test_service_role_and_groups_are_the_course_ones():
    assert service_problems(load("values.yaml"), load_all("formgrader.yaml")) == []


@pytest.mark.parametrize("change, expected", [
    (lambda v: v["hub"]["services"].update({"formgrader": v["hub"]["services"].pop(
        FORMGRADER_SERVICE)}), "hub.services"),
    (lambda v: v["hub"]["loadRoles"]["course-graders"].update(groups=[STUDENTS_GROUP]),
     "is not hub/jupyterhub_config.py's"),
    (lambda v: v["hub"]["config"]["JupyterHub"]["load_groups"].pop(STUDENTS_GROUP), "groups"),
    (lambda v: v["hub"]["services"][FORMGRADER_SERVICE].update(url="http://formgrader:8888"),
     "service url"),
])
def test_service_check_finds_a_name_or_role_the_course_does_not_use(change, expected):
    problems = problems_after(change, lambda v: service_problems(v, load_all("formgrader.yaml")))
    assert any(expected in p for p in problems), problems


def test_dask_workers_reach_the_scheduler_service_one_submission_at_a_time():
    docs = load_all("dask.yaml")
    service = manifest(docs, "Service", "dask-scheduler")
    worker = only_container(manifest(docs, "Deployment", "dask-worker"))
    address = f"tcp://{service['metadata']['name']}:{service['spec']['ports'][0]['port']}"
    assert address in worker["command"]
    assert worker["command"][worker["command"].index("--nthreads") + 1] == "1"
    assert f"--cluster {address}" in (K8S / "dask.yaml").read_text()
