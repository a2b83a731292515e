"""LTI 1.3 launches from the LMS: who arrives at the class hub, as which account, in which group.

With ``COURSE_HUB_LTI_ISSUER`` set, the hub (``hub/jupyterhub_config.py``) takes its logins
from the course's LMS (Canvas, Moodle) instead of passwords: a person clicks the course's link,
the LMS runs the OpenID Connect third-party-initiated login of the IMS Security Framework
(§5.1.1) with jupyterhub-ltiauthenticator, and posts back an ``id_token`` signed with its key.
jupyterhub-ltiauthenticator 1.6 checks the signature against the platform's JWKS, ``iss``,
``aud``, ``exp``, ``iat`` and that the ``nonce`` is the one this browser's login asked for
(Security Framework §5.1.3). This module adds what it leaves to the tool:

* the deployment: ``deployment_id`` (LTI Core 1.3 §5.3.3) must be one this hub was registered
  with, so another course's or another institution's placement of the tool is refused;
* replays: a nonce is accepted once (Security Framework §5.1.3), remembered until its
  token has expired, so a captured launch (token, state and cookies) cannot be posted again;
* the person: the launch must name an account of the hub roster (``course hub users``), the
  same Unix account a password login would use; its role (LTI Core 1.3 §5.3.7, vocabulary
  §A.2.3) chooses the group (Learner: ``nbgrader-<course>``; Instructor or TeachingAssistant:
  ``formgrade-<course>``) and must agree with the roster's role.

Trusted: the platform's signed claims once jupyterhub-ltiauthenticator has verified them, and
the instructor's roster. Not trusted: anything else in the request. Every refusal is a 403 page
that says why and what to do.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.validator import LTI13LaunchValidator
from tornado.web import HTTPError
from traitlets import Set, Unicode

from grader.hub.roster import HubUser, _login_name, read_roster

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
DEPLOYMENT_CLAIM = CLAIM + "deployment_id"
ROLES_CLAIM = CLAIM + "roles"
CUSTOM_CLAIM = CLAIM + "custom"
# Context roles (LTI Core 1.3 §A.2.3) and the teaching assistant's sub-role of Instructor.
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
LEARNER_ROLES = frozenset({f"{MEMBERSHIP}#Learner"})
STAFF_ROLES = frozenset({f"{MEMBERSHIP}#Instructor", f"{MEMBERSHIP}#TeachingAssistant",
                         f"{MEMBERSHIP}/Instructor#TeachingAssistant"})
# The custom fields the tool's registration asks the LMS to send (README, "Launches from the
# LMS"): the login name (Canvas and Moodle: $User.username) and the LMS's user id ($User.id).
LOGIN_FIELD, LMS_ID_FIELD = "login_id", "lms_user_id"


def course_side(roles: list[str]) -> str:
    """``"staff"`` for an Instructor or TeachingAssistant role, ``"student"`` for Learner.

    Raises
    ------
    ValueError
        When the launch carries neither (a Mentor, an administrator, no context role).
    """
    if not isinstance(roles, list) or not all(isinstance(r, str) for r in roles):
        raise ValueError("the launch's roles claim is not a list of role URIs")
    if STAFF_ROLES.intersection(roles):
        return "staff"
    if LEARNER_ROLES.intersection(roles):
        return "student"
    raise ValueError("the LMS sent no Learner, Instructor or TeachingAssistant role for this "
                     "course, so the hub cannot tell which group you belong to")


def launch_person(claims: dict[str, Any], roster: dict[str, HubUser]) -> HubUser:
    """The roster's person an LTI launch names, checked against the launch's role.

    The account is the roster's account whose name is the launch's login (custom field
    ``login_id``, normalised as ``course hub users`` makes account names from Canvas's SIS login
    id). For a student the roster also holds the LMS's user id, and the launch's ``lms_user_id``
    must be the same: a login that was renamed in the LMS cannot take over another's account.

    Raises
    ------
    ValueError
        Naming the problem: no login in the launch, a person who is not on the roster, a
        different LMS user id, or an LMS role that is not the roster's.
    """
    custom = claims.get(CUSTOM_CLAIM) or {}
    login = str(custom.get(LOGIN_FIELD, "")).strip() if isinstance(custom, dict) else ""
    if not login:
        raise ValueError(f"the LMS sent no {LOGIN_FIELD!r} custom field: the tool's registration "
                         f"must include {LOGIN_FIELD}=$User.username")
    person = roster.get(_login_name(login))
    if person is None:
        raise ValueError(f"{login!r} is not on this course's hub roster; ask the instructor to "
                         "add you (course hub users)")
    if person.lms_id and str(custom.get(LMS_ID_FIELD, "")) != person.lms_id:
        raise ValueError(f"the LMS's user id for {login!r} is not the roster's; ask the "
                         "instructor to run course hub users with a new roster export")
    side = course_side(claims.get(ROLES_CLAIM))
    if side != ("student" if person.role == "student" else "staff"):
        raise ValueError(f"the LMS launched {login!r} as {side}, but the hub roster has them as "
                         f"{person.role}; ask the instructor to update the roster")
    return person


class NonceLedger:
    """The nonces of accepted launches, each kept until its token could not be accepted anyway."""

    def __init__(self) -> None:
        self._until: dict[str, float] = {}

    def first_use(self, nonce: str, until: float) -> bool:
        """Record ``nonce`` (kept until the epoch time ``until``); False if it was seen."""
        now = time.time()
        self._until = {n: t for n, t in self._until.items() if t >= now}
        if nonce in self._until:
            return False
        self._until[nonce] = until
        return True


class RosterLTI13Authenticator(LTI13Authenticator):
    """LTI 1.3 launches (jupyterhub-ltiauthenticator) for the people of the hub roster only."""

    roster_file = Unicode(help="the hub roster that `course hub users` writes").tag(config=True)
    deployment_ids = Set(Unicode(), help="the LMS deployment ids this hub is registered with "
                         "(LTI Core 1.3 §5.3.3); launches from any other are refused"
                         ).tag(config=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.nonces = NonceLedger()  # one hub process, so memory is the whole ledger

    def _roster(self) -> dict[str, HubUser]:
        return read_roster(Path(self.roster_file))

    def check_allowed(self, username: str, authentication: dict | None = None) -> bool:
        return username in self._roster()

    async def authenticate(self, handler, data: dict[str, Any] | None = None) -> dict:
        """The hub user of a verified launch (``data``: the decoded ``id_token``), or a 403."""
        claims = data or {}
        deployment = claims.get(DEPLOYMENT_CLAIM)
        if deployment not in self.deployment_ids:
            raise HTTPError(403, f"this hub is not registered for the LMS deployment "
                                 f"{deployment!r}; ask the instructor for the course's link")
        leeway = LTI13LaunchValidator(parent=self.parent).time_leeway
        if not self.nonces.first_use(str(claims.get("nonce")), float(claims["exp"]) + leeway):
            raise HTTPError(403, "this launch was already used; start again from the LMS")
        try:
            person = launch_person(claims, self._roster())
        except ValueError as problem:
            raise HTTPError(403, str(problem)) from None
        return {"name": person.name, "groups": person.groups,
                "admin": person.role == "instructor"}

    async def refresh_user(self, user, handler=None) -> bool:
        """Keep the launch's groups while the person is on the roster; log out who left."""
        return user.name in self._roster()

