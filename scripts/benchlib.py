"""benchlib.py — what the Python bench scripts share (standard library only). A script in this
folder imports it by name: Python puts the script's own folder first on its path."""
import socket


def free_port():
    """A loopback port nothing listens on now (the kernel picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
