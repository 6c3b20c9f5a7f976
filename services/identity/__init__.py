"""Player identity the server verifies: player tokens (JWTs) from trusted platform issuers
(JWKS) and from the server's own guest issuer (:mod:`services.identity.verifier`,
:mod:`services.identity.guest`), and the ``IdentityService`` gRPC servicer
(:mod:`services.identity.rpcs`).  Clients never say who they are; the token says it.
"""
