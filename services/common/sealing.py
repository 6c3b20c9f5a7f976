"""Secrets kept in Redis, sealed with a key that does not live there (AES-256-GCM, a key ring).

A copy of Redis (a dump, its AOF, a replica, a reader with a password) must not let anyone sign
as the guest issuer, read a game's server secret or seed, predict its draws or sign webhooks.  So
every such value is stored **sealed**: encrypted and authenticated with AES-256-GCM
(``cryptography``'s ``AESGCM``) under a master key read from a file outside Redis
(``CHAIWALA_SECRET_KEYS_FILE``: a Kubernetes or Compose secret; ``make run`` generates one in
``var/keys/``, mode 0600).

Decisions, written down:

* **AES-GCM directly with the master key, one key id per record** (no per-record data key): the
  records are small, are sealed by the process that writes them, and a key ring with ids already
  gives rotation; a wrapped data key per record would add a second decryption per read and buy
  nothing here.  Each seal draws a fresh 96-bit nonce; NIST's bound for random nonces (2^32
  messages per key) is far beyond what one key seals between rotations, and rotating resets it.
* **Each sealed value is bound to where it belongs**: the associated data names its place
  (``context``: e.g. ``snapshot:<game id>``), so a sealed value copied into another record does
  not open there.
* **Key ring file**: one key a line, ``<key id> <base64 of 32 bytes>``, ``#`` comments; the first
  key seals, every key opens (a sealed value names its key id).  Rotation: add the new key on a
  second line and roll it out (every process can now open what it will seal), move it to the first
  line and roll out again, run ``chaiwala secrets reseal`` to seal every record with it, then drop
  the old line.  ``chaiwala secrets new-key`` prints a fresh line.
* **Values stored before sealing** (no seal marker) are read as they are, so an upgrade needs no
  downtime; they are sealed when next written, or all at once by ``chaiwala secrets reseal``.

Formats: bytes values (snapshots) are ``NUL "sealed1:" <key id> ":" nonce ciphertext`` (JSON and
zlib never start with NUL); text values (hash fields) are ``"sealed:v1:" <key id> ":" base64url``.
"""

from __future__ import annotations

import base64
import binascii
import functools
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

KEYS_FILE_ENV = "CHAIWALA_SECRET_KEYS_FILE"
KEY_BYTES = 32
NONCE_BYTES = 12
KEY_ID = re.compile(r"[A-Za-z0-9_.-]{1,32}")
# Sealed text fields kept opened per ring (a game's seed and secret: read with every load, never changed).
OPENED_CAPACITY = 4096
BYTES_MARK = b"\x00sealed1:"
TEXT_MARK = "sealed:v1:"


class SealingError(Exception):
    """A key ring that cannot be used, or a sealed value that does not open (wrong key, moved, altered)."""


@dataclass(frozen=True)
class KeyRing:
    """The master keys by id; ``current`` seals, every key opens."""

    current: str
    keys: dict[str, bytes]
    # One cipher per key, made once (making one per call was half the cost of a seal).
    _ciphers: dict[str, AESGCM] = field(default_factory=dict, init=False, repr=False, compare=False)
    _opened: dict[tuple[str, str], str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._ciphers.update({key_id: AESGCM(key) for key_id, key in self.keys.items()})

    @classmethod
    def parse(cls, text: str, source: str = "the key ring") -> KeyRing:
        """A ring from its file's text (see the module docstring); refuses a malformed one."""
        keys: dict[str, bytes] = {}
        order: list[str] = []
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split()
            if len(parts) != 2 or not KEY_ID.fullmatch(parts[0]):
                raise SealingError(f"{source}, line {number}: expected '<key id> <base64 key>'")
            try:
                key = base64.b64decode(parts[1], validate=True)
            except binascii.Error:
                raise SealingError(f"{source}, line {number}: the key is not base64") from None
            if len(key) != KEY_BYTES or parts[0] in keys:
                raise SealingError(f"{source}, line {number}: a key is {KEY_BYTES} bytes, each id once")
            keys[parts[0]] = key
            order.append(parts[0])
        if not order:
            raise SealingError(f"{source} holds no key")
        return cls(order[0], keys)

    def seal(self, plaintext: bytes, context: str) -> bytes:
        """``plaintext`` sealed with the current key, bound to ``context``."""
        nonce = secrets.token_bytes(NONCE_BYTES)
        sealed = self._ciphers[self.current].encrypt(nonce, plaintext, context.encode())
        return BYTES_MARK + self.current.encode() + b":" + nonce + sealed

    def open(self, value: bytes, context: str) -> bytes:
        """The plaintext of a sealed ``value`` (a value stored before sealing is returned as it is)."""
        if not value.startswith(BYTES_MARK):
            return value
        key_id, _, body = value[len(BYTES_MARK) :].partition(b":")
        return self._decrypt(key_id.decode(errors="replace"), body, context)

    def seal_text(self, plaintext: str, context: str) -> str:
        """A text field sealed (``sealed:v1:<key id>:<base64url>``)."""
        body = self.seal(plaintext.encode(), context)[len(BYTES_MARK) + len(self.current) + 1 :]
        return f"{TEXT_MARK}{self.current}:{base64.urlsafe_b64encode(body).decode()}"

    def open_text(self, value: str, context: str) -> str:
        """The plaintext of a sealed text field (an unsealed one is returned as it is)."""
        if not value.startswith(TEXT_MARK):
            return value
        key_id, _, body = value[len(TEXT_MARK) :].partition(":")
        try:
            raw = base64.urlsafe_b64decode(body)
        except (binascii.Error, ValueError):
            raise SealingError(f"a sealed value for {context} is not base64") from None
        return self._decrypt(key_id, raw, context).decode()

    def open_text_kept(self, value: str, context: str) -> str:
        """:meth:`open_text`, remembered by this ring (at most :data:`OPENED_CAPACITY` values, the
        oldest forgotten first): a game's seed and secret are opened on every load of the game (two
        AES-GCM opens and base64 were a tenth of reading its metadata) and never change.  Only what
        opened is kept, under the sealed value and its place, so a value moved to another place is
        still refused; a new ring (a rotation read anew) starts empty."""
        found = self._opened.get((value, context))
        if found is None:
            found = self.open_text(value, context)
            if len(self._opened) >= OPENED_CAPACITY:
                del self._opened[next(iter(self._opened))]
            self._opened[(value, context)] = found
        return found

    def _decrypt(self, key_id: str, body: bytes, context: str) -> bytes:
        cipher = self._ciphers.get(key_id)
        if cipher is None:
            raise SealingError(f"a value for {context} is sealed with key {key_id[:32]!r}, not in the key ring")
        try:
            return cipher.decrypt(body[:NONCE_BYTES], body[NONCE_BYTES:], context.encode())
        except InvalidTag:
            raise SealingError(f"a sealed value for {context} does not open (altered, or moved)") from None


def is_sealed(value: bytes | str) -> bool:
    """Whether a stored value is sealed (by either format)."""
    if isinstance(value, bytes):
        return value.startswith(BYTES_MARK) or value.startswith(TEXT_MARK.encode())
    return value.startswith(TEXT_MARK)


def new_key_line(key_id: str = "") -> str:
    """A fresh key ring line (``<key id> <base64 key>``); the id defaults to a random one."""
    key_id = key_id or f"k{secrets.token_hex(4)}"
    if not KEY_ID.fullmatch(key_id):
        raise SealingError("a key id is 1-32 characters from A-Z a-z 0-9 _ . -")
    return f"{key_id} {base64.b64encode(secrets.token_bytes(KEY_BYTES)).decode()}"


def ensure_key_file(path: Path) -> Path:
    """Create a key ring file with one fresh key at ``path`` (0600, its folder 0700) unless it exists."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.parent.chmod(0o700)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        path.chmod(0o600)
        return path
    with os.fdopen(descriptor, "w", encoding="ascii") as file:
        file.write("# Chaiwala's master keys (services/common/sealing.py): the first line seals.\n")
        file.write(new_key_line() + "\n")
    return path


def key_file_unless_set(path: Path) -> None:
    """Make ``path`` (created with a fresh key if missing) this process's key ring, and its
    children's, unless ``CHAIWALA_SECRET_KEYS_FILE`` already names one (``make run``, tests, bench)."""
    if not os.environ.get(KEYS_FILE_ENV):
        os.environ[KEYS_FILE_ENV] = str(ensure_key_file(path))
        keyring.cache_clear()


def load_keyring(path: str | Path) -> KeyRing:
    """The ring in the file at ``path``."""
    try:
        text = Path(path).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as error:
        raise SealingError(f"cannot read the key ring {path}: {type(error).__name__}") from None
    return KeyRing.parse(text, str(path))


@functools.cache
def keyring() -> KeyRing:
    """This process's key ring, from ``CHAIWALA_SECRET_KEYS_FILE`` (read once)."""
    path = os.environ.get(KEYS_FILE_ENV, "")
    if not path:
        raise SealingError(
            f"{KEYS_FILE_ENV} is not set: the secrets stored in Redis are sealed with a key kept outside it "
            "(make run generates one; see the operators guide, security)"
        )
    return load_keyring(path)


# KEYS: the key.  ARGV: the hash field ('' = a string key), the value expected, the new value.
_REPLACE_IF_UNCHANGED = """
local current
if ARGV[1] == '' then current = redis.call('GET', KEYS[1]) else current = redis.call('HGET', KEYS[1], ARGV[1]) end
if current ~= ARGV[2] then return 0 end
if ARGV[1] == '' then
  redis.call('SET', KEYS[1], ARGV[3], 'KEEPTTL')
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
end
return 1
"""


async def replace_if_unchanged(redis: Any, key: str, field: str, expected: bytes, value: bytes) -> int:
    """Write ``value`` at ``key`` (its hash ``field``, or the string itself for ``""``) only if it
    still holds ``expected``: a re-seal never overwrites what a writer changed meanwhile.  1 if written."""
    if value == expected:
        return 0
    answer = await redis.eval(_REPLACE_IF_UNCHANGED, 1, key, field, expected, value)
    return int(answer)


def require_keyring() -> None:
    """Exit with the reason when this process has no usable key ring (call it at start)."""
    try:
        keyring()
    except SealingError as error:
        raise SystemExit(str(error)) from None
