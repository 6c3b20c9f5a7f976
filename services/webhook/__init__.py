"""Signed webhooks: operator subscriptions to the outbox's domain events, delivered at least once.

``python -m services.webhook`` runs the dispatcher: the ``WebhookService`` (gRPC; the gateway
serves it as ``/v1/webhooks``), the fan-out of outbox events (:mod:`services.outbox`, consumer
group ``webhooks``) into per-subscription deliveries, and the deliveries themselves — Standard
Webhooks signatures (:mod:`services.webhook.delivery`), exponential backoff with jitter for up
to a day, then the dead-letter list (:mod:`services.webhook.store`), SSRF guard
(:mod:`services.webhook.targets`).  See README "Webhooks".
"""
