"""mllib: the course's reference implementations, one module per topic.

Every algorithm follows the convention of the text it cites in its docstring; where the texts
differ, the docstring says which one the code follows (see ``shared/seeds/INDEX.md``).
"""

__version__ = "0.1.0"
