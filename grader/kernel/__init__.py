"""Where student code runs: the bubblewrap sandbox, the kernel's start-up guard and a bounded client
that reads what the kernel says.

Owns: the walls around a student's code. ``kernel_guard`` imports nothing of the course: the
kernel runs it by path.
Trusts: nothing that comes out of the kernel.
"""
