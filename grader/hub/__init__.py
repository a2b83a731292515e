"""The class on JupyterHub: accounts and groups from the roster (``roster``), the exchange's
owner-checked collect (``exchange``), LTI 1.3 launches (``lti``) and each server's
memory and CPU share (``shares``, the hub's spawner).

Owns: who a hub user is and which submissions are theirs.
Trusts: the roster and the LMS's signed launch; not a file's name in the exchange.
"""
