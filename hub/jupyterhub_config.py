"""JupyterHub for the course's class (``make hub``; README, "A class on JupyterHub").

Runs as root, as The Littlest JupyterHub does, because it starts each person's server as that
person's own Unix account (LocalProcessSpawner). Who may log in, and in which group, is the
hub roster that ``course hub users ROSTER.csv`` writes (grader/hub/roster.py). Every path and port
comes from the environment, so a test can start a hub of its own beside another:

COURSE_HUB_STATE      the hub's state: database, cookie secret, roster (default hub/var)
COURSE_HUB_ENV        the Python environment every server runs, readable by every account
                      (default /opt/ml-course/venv; ``make hub`` builds it from the lock)
COURSE_EXCHANGE       nbgrader's exchange folder (default nbgrader's own)
COURSE_HUB_COURSE     the course folder the formgrader serves (default this checkout)
COURSE_HUB_PORT       the public port (8000); the hub's API, the proxy's API and the
                      formgrader take the three ports after it
COURSE_HUB_MEMORY     each server's memory share (2G), its kernels included
COURSE_HUB_CPUS       each server's CPU share, in cores (1)
COURSE_HUB_IDLE       seconds after which an idle server is stopped (3600)
COURSE_HUB_STARTS     servers that may start at once (4 per core); the rest are told to
                      try again in 30-60 s
"""

import os
import sys
from pathlib import Path

HUB_DIR = Path(__file__).resolve().parent
COURSE = Path(os.environ.get("COURSE_HUB_COURSE") or HUB_DIR.parent)
STATE = Path(os.environ.get("COURSE_HUB_STATE") or HUB_DIR / "var")
ENV = Path(os.environ.get("COURSE_HUB_ENV") or "/opt/ml-course/venv")
EXCHANGE = os.environ.get("COURSE_EXCHANGE") or "/usr/local/share/nbgrader/exchange"
PORT = int(os.environ.get("COURSE_HUB_PORT") or 8000)

sys.path.insert(0, str(COURSE))  # grader.hub.roster, the roster's authenticator
from grader.hub.roster import (  # noqa: E402
    FORMGRADER_SERVICE,
    GRADER_ACCOUNT,
    GRADERS_GROUP,
)

c = get_config()  # noqa: F821 -- injected by the traitlets config loader

c.JupyterHub.bind_url = f"http://127.0.0.1:{PORT}"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{PORT + 1}"
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{PORT + 2}"
c.ConfigurableHTTPProxy.command = [str(HUB_DIR / "node_modules" / ".bin" /
                                       "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.JupyterHub.template_paths = [str(HUB_DIR / "templates")]  # contrast of the login page
# Restarting the hub (a configuration change, a crash) mid-class stops nobody's work: the
# servers and the proxy keep running, and the restarted hub finds them in its database.
c.JupyterHub.cleanup_servers = False
c.JupyterHub.cleanup_proxy = False

# Logins: PAM passwords of the roster's accounts, in the roster's groups (grader/hub/roster.py).
# The roster is read at every login and every refresh_user, so removing someone takes effect
# within a minute, and their groups are the roster's, not what the admin page last set.
c.JupyterHub.authenticator_class = "grader.hub.roster.RosterAuthenticator"
c.RosterAuthenticator.roster_file = str(STATE / "roster.json")
c.Authenticator.manage_groups = True
c.Authenticator.auth_refresh_age = 60
c.Authenticator.refresh_pre_spawn = True
c.Authenticator.any_allow_config = True  # RosterAuthenticator.check_allowed is the allow rule

# Each server runs the course's environment as its owner's account, with the student side of
# nbgrader (hub/student, copied into the environment by `make hub-env`, since the accounts may
# not read this checkout: the course id and the exchange; no formgrader, no Create Assignment).
c.Spawner.cmd = [str(ENV / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.environment = {
    "JUPYTER_CONFIG_PATH": str(ENV / "etc" / "course-student"),  # hub/student, installed
    "COURSE_EXCHANGE": EXCHANGE,
    "PATH": f"{ENV / 'bin'}:/usr/bin:/bin",
}
# Fair shares (README, "Fair shares"; grader/hub/shares.py): each server, with every kernel it
# starts, in a control group of its own holding it to its memory and CPU share.
c.JupyterHub.spawner_class = "grader.hub.shares.ShareSpawner"
c.Spawner.mem_limit = os.environ.get("COURSE_HUB_MEMORY") or "2G"
c.Spawner.cpu_limit = float(os.environ.get("COURSE_HUB_CPUS") or 1)
c.Spawner.http_timeout = 120  # a first JupyterLab start on a busy 2-core machine
c.Spawner.start_timeout = 120
# Starting a JupyterLab costs a few seconds of one core, and starts at the same moment share the
# cores, so they all finish late together: 60 at once on 2 cores all outlived start_timeout and
# nobody was served (README, "How many students one machine holds"). Past this many starts the
# hub answers 429 "Too many users trying to log in right now. Try again in 40 seconds." (a
# wait drawn from 30-60 s: JupyterHub's spawn_throttle_retry_range, not configurable in 6.1).
c.JupyterHub.concurrent_spawn_limit = int(os.environ.get("COURSE_HUB_STARTS")
                                          or 4 * len(os.sched_getaffinity(0)))

# The course's formgrader: one server shared by the graders (nbgrader's "one class, multiple
# graders"), running as the grader account on the course folder and its one gradebook
# (COURSE_DB_URL, PostgreSQL, when set: grader/nbgrader_config.py).
c.JupyterHub.services = [{
    "name": FORMGRADER_SERVICE,
    "url": f"http://127.0.0.1:{PORT + 3}",
    "command": [str(ENV / "bin" / "jupyterhub-singleuser"), "--ServerApp.root_dir=" +
                str(COURSE), "--ServerApp.default_url=/formgrader"],
    "user": GRADER_ACCOUNT,
    "cwd": str(COURSE),
    "oauth_no_confirm": True,
    "environment": {
        "JUPYTER_CONFIG_PATH": str(COURSE / "grader"),
        "JUPYTER_PATH": str(COURSE / "grader" / "jupyter"),
        "COURSE_EXCHANGE": EXCHANGE,
        "PATH": f"{ENV / 'bin'}:/usr/bin:/bin",
        **{k: v for k, v in os.environ.items() if k in ("COURSE_DB_URL", "COURSE_SECRET")},
    },
}]
c.JupyterHub.load_roles = [{
    "name": "course-graders",
    "description": "the course's graders and instructors reach its formgrader",
    "groups": [GRADERS_GROUP],
    "scopes": [f"access:services!service={FORMGRADER_SERVICE}"],
}]

# Idle servers are stopped (jupyterhub-idle-culler, in the lock), their memory given back: a
# server nobody used for COURSE_HUB_IDLE seconds (no browser tab, no running kernel), checked
# every quarter of that, at most every 5 minutes. The files stay; the next login starts it again.
IDLE = int(os.environ.get("COURSE_HUB_IDLE") or 3600)
c.JupyterHub.services.append({
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={IDLE}",
                f"--cull-every={max(1, min(300, IDLE // 4))}"],
})
c.JupyterHub.load_roles.append({
    "name": "idle-culler",
    "description": "stops idle servers",
    "services": ["idle-culler"],
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
})

# Launches from the LMS (README, "Launches from the LMS (LTI 1.3)"; grader/hub/lti.py): with an
# issuer set, people arrive from Canvas or Moodle by LTI 1.3 instead of a password, as the same
# roster accounts. The values are those of the tool's registration in the LMS; the client and
# deployment ids may each be a comma-separated list.
if os.environ.get("COURSE_HUB_LTI_ISSUER"):
    c.JupyterHub.authenticator_class = "grader.hub.lti.RosterLTI13Authenticator"
    c.RosterLTI13Authenticator.roster_file = str(STATE / "roster.json")
    c.RosterLTI13Authenticator.issuer = os.environ["COURSE_HUB_LTI_ISSUER"]
    c.RosterLTI13Authenticator.client_id = set(os.environ["COURSE_HUB_LTI_CLIENT_ID"].split(","))
    c.RosterLTI13Authenticator.deployment_ids = set(
        os.environ["COURSE_HUB_LTI_DEPLOYMENTS"].split(","))
    c.RosterLTI13Authenticator.authorize_url = os.environ["COURSE_HUB_LTI_AUTHORIZE_URL"]
    c.RosterLTI13Authenticator.jwks_endpoint = os.environ["COURSE_HUB_LTI_JWKS_URL"]
