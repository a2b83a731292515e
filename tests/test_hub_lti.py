"""LTI 1.3 launches from the LMS into the class hub (issue 38, item 1; grader/hub/lti.py).

The rules first, without a hub: which LTI role is which side of the course, and how a launch
names a roster account. Then, as root, one hub of the tests' own (tests/hub_support.py's
start_hub, taking its logins from the platform of tests/lti_support.py): a student and an
instructor arrive from the LMS in their own groups, and each launch the IMS Security Framework
(§5.1.3) or the hub's roster says to refuse is refused with a page that says why.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urljoin

import pytest
import requests

from grader.hub.lti import (
    CUSTOM_CLAIM,
    DEPLOYMENT_CLAIM,
    MEMBERSHIP,
    ROLES_CLAIM,
    NonceLedger,
    course_side,
    launch_person,
)
from grader.hub.roster import HubUser
from tests import hub_support
from tests.hub_support import ClassHub, HubSession
from tests.lti_support import (
    INSTRUCTOR,
    LEARNER,
    Person,
    Platform,
    begin_launch,
    finish_launch,
    start_platform,
)

TA = [f"{MEMBERSHIP}/Instructor#TeachingAssistant", f"{MEMBERSHIP}#Instructor"]
STUDENTS = [("Lovelace, Ada", "3001", "lti-ada@uni.edu"), ("Byron, Bo", "3002", "lti-bo")]
ADA, BO, GRADER = "lti-ada", "lti-bo", "lti-tom"
ACCOUNTS = [ADA, BO, GRADER]  # names no other hub test uses: its hub may run beside this one
PEOPLE = {"hint-ada": Person("lti-ada@uni.edu", "3001", LEARNER),
          "hint-bo": Person("lti-bo", "3002", LEARNER),
          "hint-tom": Person("lti-tom", "77", INSTRUCTOR),
          "hint-eve": Person("lti-eve", "3099", LEARNER)}  # in the LMS, not on the roster
LOGIN_COOKIE = "jupyterhub-hub-login"  # the hub's session: set only by a successful login
ROSTER = {ADA: HubUser(ADA, "student", "Lovelace, Ada", "3001"),
          GRADER: HubUser(GRADER, "grader")}


def claims(login: str, lms_id: str, roles: list[str]) -> dict:
    return {ROLES_CLAIM: roles, CUSTOM_CLAIM: {"login_id": login, "lms_user_id": lms_id}}


@pytest.mark.parametrize(("roles", "side"), [
    (LEARNER, "student"), (INSTRUCTOR, "staff"), (TA, "staff"), (TA[:1], "staff"),
    ([*LEARNER, *TA[:1]], "staff")])
def test_lti_roles_choose_the_side_of_the_course(roles: list[str], side: str) -> None:
    assert course_side(roles) == side


@pytest.mark.parametrize("roles", [[], [f"{MEMBERSHIP}#Mentor"], "Learner", None])
def test_a_launch_without_a_course_role_is_refused(roles) -> None:
    with pytest.raises(ValueError, match="role"):
        course_side(roles)


def test_a_launch_names_the_roster_account_of_its_login() -> None:
    assert launch_person(claims("LTI-Ada@uni.edu", "3001", LEARNER), ROSTER) == ROSTER[ADA]
    assert launch_person(claims("lti-tom", "", TA), ROSTER) == ROSTER[GRADER]


@pytest.mark.parametrize(("launch", "problem"), [
    (claims("lti-eve", "3099", LEARNER), "not on this course's hub roster"),
    (claims("lti-ada", "3002", LEARNER), "user id for 'lti-ada' is not the roster's"),
    (claims("lti-ada", "3001", INSTRUCTOR), "as staff, but the hub roster has them as student"),
    (claims("lti-tom", "", LEARNER), "as student, but the hub roster has them as grader"),
    ({ROLES_CLAIM: LEARNER}, "no 'login_id' custom field")])
def test_a_launch_the_roster_does_not_back_is_refused(launch: dict, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        launch_person(launch, ROSTER)


def test_a_nonce_is_accepted_once_until_its_token_expires() -> None:
    ledger, now = NonceLedger(), time.time()
    assert ledger.first_use("n1", now + 60) and ledger.first_use("n2", now - 1)
    assert not ledger.first_use("n1", now + 60)
    assert ledger.first_use("n2", now + 60)  # n2's token had expired: forgotten, not refused


@pytest.fixture(scope="module")
def lti_hub():
    hub_support.require_root()
    hub_support.build_hub_env()
    hub_support.remove_accounts(ACCOUNTS)  # left by an interrupted run; no one else's
    root = Path(tempfile.mkdtemp(prefix="lti-hub-"))  # every account may enter it
    platform, server = start_platform(PEOPLE)
    try:
        with pytest.MonkeyPatch.context() as env:
            for name, value in platform.hub_environment().items():
                env.setenv(name, value)  # start_hub's hub reads these (hub/jupyterhub_config.py)
            roster = hub_support.canvas_roster(root / "roster.csv", STUDENTS)
            hub = hub_support.start_hub(root, roster, [GRADER], [])
        try:
            yield hub, platform
        finally:
            hub.stop_all()
    finally:
        server.shutdown()
        hub_support.remove_accounts(ACCOUNTS)
        shutil.rmtree(root, ignore_errors=True)


def launch(hub: ClassHub, platform: Platform, hint: str, name: str) -> tuple[HubSession,
                                                                            requests.Response]:
    """``name`` clicks the course's link in the LMS; their session and the hub's answer."""
    session = HubSession(hub, name)
    return session, finish_launch(session.http, begin_launch(session.http, hub.url, platform,
                                                             hint))


def groups(session: HubSession) -> list[str]:
    reply = session.get(f"{session.hub.url}/hub/api/user")
    assert reply.status_code == 200, reply.text
    return reply.json()["groups"]


def test_a_learner_lands_in_their_own_server_in_the_students_group(lti_hub) -> None:
    hub, platform = lti_hub
    ada, answer = launch(hub, platform, "hint-ada", ADA)
    assert answer.status_code == 302, answer.text
    assert groups(ada) == ["nbgrader-ml-course"]
    ada.get(urljoin(hub.url, answer.headers["Location"]))  # the browser follows: /hub/spawn
    ada.server()
    owners = subprocess.run(["ps", "-o", "user=", "-C", "jupyterhub-sing"],
                            capture_output=True, text=True).stdout.split()
    assert ADA in owners
    assert ada.get(hub.formgrader).status_code == 403


def test_an_instructor_lands_in_the_graders_group(lti_hub) -> None:
    hub, platform = lti_hub
    tom, answer = launch(hub, platform, "hint-tom", GRADER)
    assert answer.status_code == 302, answer.text
    assert groups(tom) == ["formgrade-ml-course"]
    assert tom.get(hub.formgrader).status_code == 200


@pytest.mark.parametrize(("hint", "tampering", "status", "reason"), [
    ("hint-bo", {"iss": "https://other-lms.example.edu"}, 400, "Invalid issuer"),
    ("hint-bo", {"exp": "expired"}, 400, "Signature has expired"),
    ("hint-bo", {"nonce": "a-nonce-the-hub-never-sent"}, 400, "OAuth nonce mismatch"),
    ("hint-bo", {DEPLOYMENT_CLAIM: "2:another-course"}, 403,
     "not registered for the LMS deployment"),
    ("hint-eve", {}, 403, "is not on this course"),
    ("hint-bo", {ROLES_CLAIM: INSTRUCTOR}, 403, "as staff, but the hub roster has them"),
], ids=["wrong-issuer", "expired", "bad-nonce", "unknown-deployment", "not-on-roster",
        "role-not-the-rosters"])
def test_a_launch_that_must_not_log_in_is_refused_with_its_reason(
        lti_hub, hint: str, tampering: dict, status: int, reason: str) -> None:
    hub, platform = lti_hub
    if tampering.get("exp") == "expired":  # issued ten minutes ago, expired a minute ago
        tampering = {"exp": int(time.time()) - 60, "iat": int(time.time()) - 600}
    platform.tampering = tampering
    session, answer = launch(hub, platform, hint, BO)
    assert answer.status_code == status and reason in answer.text.replace("&#39;", "'"), (
        answer.status_code, answer.text[-2000:])
    assert LOGIN_COOKIE not in session.http.cookies


def test_a_replayed_launch_is_refused(lti_hub) -> None:
    """Token, state and the browser's cookies captured and posted again (Security Framework
    §5.1.3: the tool should refuse a nonce it has received before)."""
    hub, platform = lti_hub
    first = HubSession(hub, BO)
    captured = begin_launch(first.http, hub.url, platform, "hint-bo")
    assert finish_launch(first.http, captured).status_code == 302
    thief = requests.Session()
    thief.cookies.update(captured.cookies)
    replay = finish_launch(thief, captured)
    assert replay.status_code == 403 and "already used" in replay.text, replay.text[-2000:]
    assert LOGIN_COOKIE not in thief.cookies
