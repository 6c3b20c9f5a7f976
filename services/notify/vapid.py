"""The server's VAPID key pair (RFC 8292): made on the first start, stored, shared by every sender.

The public key (base64url of the uncompressed P-256 point) is what browsers pass as
``applicationServerKey``; the private key signs each push's ``Authorization: vapid`` header.  Both
live in Redis (:meth:`services.notify.store.NotifyStore.vapid_keys`), so any number of senders sign
alike and subscriptions survive restarts.  The private key goes to and comes from storage only
through :func:`seal` and :func:`unseal`: today they pass it through as PEM; encrypting secrets at
rest (another change) wraps these two functions and nothing else.
"""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

from services.common.sealing import keyring
from services.notify.store import NotifyStore

CLAIMS_TTL_S = 12 * 3600


# Where the key is sealed (services.common.sealing binds a sealed value to its place).
PLACE = "push-vapid-private-key"


def seal(private_pem: str) -> str:
    """The private key as stored: sealed with the master key ring, so a copy of Redis signs nothing."""
    return keyring().seal_text(private_pem, PLACE)


def unseal(stored: str) -> str:
    """The private key from its stored form (see :func:`seal`; a key stored before sealing as it is)."""
    return keyring().open_text(stored, PLACE)


@dataclass(frozen=True)
class VapidKeys:
    """The pair in use: the signer and the public key browsers subscribe with."""

    signer: Vapid02
    public_key: str

    def headers(self, endpoint: str, subject: str) -> dict[str, str]:
        """The ``Authorization`` header of one push to ``endpoint``'s push service."""
        parts = urlsplit(endpoint)
        claims = {"sub": subject, "aud": f"{parts.scheme}://{parts.netloc}", "exp": int(time.time()) + CLAIMS_TTL_S}
        signed = self.signer.sign(claims)
        return {"Authorization": str(signed["Authorization"])}


def _new_pair() -> tuple[str, str]:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return pem.decode(), base64.urlsafe_b64encode(point).rstrip(b"=").decode()


async def load_keys(store: NotifyStore) -> VapidKeys:
    """The stored pair, made and stored first when there is none (the first sender wins a race)."""
    private, public = _new_pair()
    stored, published = await store.vapid_keys(seal(private), public)
    signer = Vapid02.from_pem(unseal(stored).encode())
    return VapidKeys(signer, published)
