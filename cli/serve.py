"""`cgl serve`: the command that starts the browser table (the app is cli/webapp.py)."""
from __future__ import annotations

import ipaddress
import os
import secrets
import socket
import sys

import click

from cgl.interpreter.base.diagnostics import CglError

EXIT_USAGE = 2


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _host_key(games_dir: str) -> str:
    """The lobby's key, kept in the games folder so that a restarted server keeps its link."""
    path = os.path.join(games_dir, "host.key")
    if os.path.isfile(path) and not os.path.islink(path):
        with open(path, encoding="utf-8") as f:
            key = f.read().strip()
        if len(key) >= 16:
            return key
    key = secrets.token_urlsafe(16)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(key + "\n")
    return key


@click.command()
@click.argument("rulesets", nargs=-1, type=click.Path(exists=True))
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on. The default takes players on this machine only; "
                   "0.0.0.0 takes anyone who can reach this machine (say so to no stranger).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535), help="The port to listen on.")
@click.option("--games", "games_dir", default="cgl-games", show_default=True,
              type=click.Path(file_okay=False), help="The folder each game is saved in (after every answer); "
              "a restarted server resumes every game it finds there.")
def serve(rulesets, host, port, games_dir):
    """Serve a browser table: people play a ruleset together, each in their own browser.

    RULESETS: `.cgl` files, or folders of them, offered in the lobby beside the shipped
    rulesets (nothing else is read). The lobby's link is printed; it carries the host's
    key. Create a game there, choosing who plays each seat (a person, or a bot), and send
    each person the link of their seat: that link shows only what that seat may see.

    \b
    On this machine:       cgl serve   (open each seat's link in its own window)
    On the same network:   cgl serve --host 0.0.0.0
                           (give players the links with this machine's address)
    """
    try:
        import uvicorn
        from .webapp import MAX_BODY, Server, make_app
    except ImportError as e:   # (dependencies of cgl; a broken install)
        click.echo(f"cgl serve needs {e.name}: pip install starlette uvicorn websockets orjson", err=True)
        sys.exit(EXIT_USAGE)
    try:
        os.makedirs(games_dir, exist_ok=True)
        key = _host_key(games_dir)
        server = Server(list(rulesets), games_dir, key)
    except (OSError, CglError) as e:
        msg = e.diagnostics[0].message if isinstance(e, CglError) else f"{games_dir}: {e.strerror or e}"
        click.echo(f"error: {msg}", err=True)
        sys.exit(EXIT_USAGE)
    probe = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
    except OSError as e:
        click.echo(f"error: cannot listen on {host}:{port}: {e.strerror or e}", err=True)
        click.echo("help: is another `cgl serve` running? pick another port with --port", err=True)
        sys.exit(EXIT_USAGE)
    finally:
        probe.close()
    shown = host if _loopback(host) else (host if host not in ("0.0.0.0", "::") else "THIS-MACHINE")
    if not _loopback(host):
        click.secho(f"WARNING: listening on {host}: anyone who can reach this machine can open the table page "
                    "of a seat whose link they have. Only the lobby link (below) creates games.", fg="red",
                    bold=True, err=True)
    for p in server.problems:
        click.echo(f"not resumed: {p}", err=True)
    click.echo(f"cgl serve: {len(server.rooms)} game(s) resumed from {games_dir}/")
    click.echo(f"Lobby (host only): http://{shown}:{port}/lobby?key={key}")
    click.echo("Press Ctrl-C to stop; every game is saved and resumes when you serve again.")
    uvicorn.run(make_app(server), host=host, port=port, log_level="warning", ws_max_size=MAX_BODY,
                # (no per-message compression: deflating every view cost the server more CPU than
                # building it, for a few kilobytes a move)
                ws_per_message_deflate=False)
