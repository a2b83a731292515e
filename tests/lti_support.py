"""An LTI 1.3 platform of the tests' own: an RSA key, its JWKS and an authorization endpoint.

It plays the LMS's part of a launch on loopback (IMS Security Framework 1.0 §5.1.1, the OpenID
Connect third-party-initiated login): the test, as the browser, starts the hub's login
initiation with the platform's ``iss`` and a ``login_hint``; the hub redirects to the platform's
authorization endpoint with its ``state`` and ``nonce``; the platform answers with the form a
real LMS auto-submits, which posts an ``id_token`` signed with RS256 (its public key in the
JWKS the hub fetches) back to the hub. The token carries the claims of LTI Core 1.3 §5 (the
resource link launch; its required claims §5.3: message type, version, deployment id, target
link URI, resource link, roles; and custom fields), each of which a test may replace to see
the hub refuse it as the Security Framework's §5.1.3 says.
"""

from __future__ import annotations

import html
import json
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

import jwt
import requests
from cryptography.hazmat.primitives.asymmetric import rsa

from grader.hub.lti import CLAIM, CUSTOM_CLAIM, DEPLOYMENT_CLAIM, MEMBERSHIP, ROLES_CLAIM

LEARNER = [f"{MEMBERSHIP}#Learner"]
INSTRUCTOR = [f"{MEMBERSHIP}#Instructor"]
TOKEN_LIFETIME = 300  # seconds; Canvas's id_tokens live an hour, any lifetime will do here


@dataclass(frozen=True)
class Person:
    """Someone logged in to the platform, as its launches describe them."""

    login: str  # the LMS login ($User.username), sent as the custom field login_id
    lms_id: str  # the LMS's user id ($User.id), sent as lms_user_id
    roles: list[str]


@dataclass
class Platform:
    """The LMS of the tests: who is logged in, its ids, and what its next token should change."""

    port: int
    people: dict[str, Person]  # by login_hint
    issuer: str = "https://lms.example.edu"
    client_id: str = "ml-course-hub"
    deployment_id: str = "1:ml-course"
    tampering: dict[str, Any] = field(default_factory=dict)  # claims the next token replaces
    key: rsa.RSAPrivateKey = field(
        default_factory=lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048))
    kid: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def hub_environment(self) -> dict[str, str]:
        """What hub/jupyterhub_config.py reads to take its logins from this platform."""
        return {"COURSE_HUB_LTI_ISSUER": self.issuer, "COURSE_HUB_LTI_CLIENT_ID": self.client_id,
                "COURSE_HUB_LTI_DEPLOYMENTS": self.deployment_id,
                "COURSE_HUB_LTI_AUTHORIZE_URL": f"{self.url}/authorize",
                "COURSE_HUB_LTI_JWKS_URL": f"{self.url}/jwks"}

    def jwks(self) -> dict:
        """The platform's public key set (RFC 7517), as its JWKS endpoint serves it."""
        public = jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return {"keys": [{**public, "kid": self.kid, "alg": "RS256", "use": "sig"}]}

    def id_token(self, request: dict[str, str]) -> str:
        """The signed id_token answering the hub's authentication request (its query)."""
        person = self.people[request["login_hint"]]
        now = int(time.time())
        claims = {
            "iss": self.issuer, "aud": request["client_id"], "sub": uuid.uuid5(
                uuid.NAMESPACE_URL, person.login).hex, "iat": now, "exp": now + TOKEN_LIFETIME,
            "nonce": request["nonce"],
            CLAIM + "message_type": "LtiResourceLinkRequest", CLAIM + "version": "1.3.0",
            DEPLOYMENT_CLAIM: self.deployment_id,
            CLAIM + "target_link_uri": request["redirect_uri"].split("/hub/")[0] + "/hub",
            CLAIM + "resource_link": {"id": "ml-course-link"},
            CLAIM + "context": {"id": "ml-course", "label": "ML", "title": "Machine learning"},
            ROLES_CLAIM: person.roles,
            CUSTOM_CLAIM: {"login_id": person.login, "lms_user_id": person.lms_id},
        }
        claims.update(self.tampering)
        self.tampering = {}
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": self.kid})

    def authorization_form(self, request: dict[str, str]) -> str:
        """The page a platform answers an authentication request with (response_mode
        form_post): a form that posts the token and the hub's state to its redirect_uri."""
        fields = {"id_token": self.id_token(request), "state": request["state"]}
        inputs = "".join(f'<input type="hidden" name="{k}" value="{html.escape(v)}">'
                         for k, v in fields.items())
        return (f'<form method="post" action="{html.escape(request["redirect_uri"])}">'
                f"{inputs}</form>")


def _handler(platform: Platform) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 -- http.server's name
            url = urlparse(self.path)
            if url.path == "/jwks":
                body, kind = json.dumps(platform.jwks()), "application/json"
            elif url.path == "/authorize":
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                body, kind = platform.authorization_form(query), "text/html"
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args: Any) -> None:  # quiet: the test's output is the hub's
            pass

    return Handler


def start_platform(people: dict[str, Person]) -> tuple[Platform, ThreadingHTTPServer]:
    """The platform, serving on a free loopback port in a thread (``server.shutdown()``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    platform = Platform(server.server_address[1], people)
    server.RequestHandlerClass = _handler(platform)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return platform, server


@dataclass(frozen=True)
class Launch:
    """What the browser holds just before posting the platform's form to the hub."""

    action: str
    form: dict[str, str]
    cookies: requests.cookies.RequestsCookieJar


def begin_launch(http: requests.Session, hub_url: str, platform: Platform,
                 login_hint: str) -> Launch:
    """A click on the course's link: the login initiation (with the platform's ids) and the
    authentication request, up to the platform's form that posts the token back."""
    initiation = http.post(f"{hub_url}/hub/lti13/oauth_login", allow_redirects=False, timeout=30,
                           data={"iss": platform.issuer, "login_hint": login_hint,
                                 "target_link_uri": f"{hub_url}/hub",
                                 "lti_message_hint": "ml-course-link",
                                 "client_id": platform.client_id,
                                 "lti_deployment_id": platform.deployment_id})
    assert initiation.status_code == 302, initiation.text
    page = requests.get(initiation.headers["Location"], timeout=30)
    action = html.unescape(re.search(r'action="([^"]*)"', page.text)[1])
    form = {name: html.unescape(value)
            for name, value in re.findall(r'name="([^"]*)" value="([^"]*)"', page.text)}
    return Launch(action, form, http.cookies.copy())


def finish_launch(http: requests.Session, launch: Launch) -> requests.Response:
    """The form's post to the hub (not followed: a launch answers 302 or a refusal page)."""
    return http.post(launch.action, data=launch.form, allow_redirects=False, timeout=60)
