"""India Rails: the Empire Builder rules on a generated milepost map of the Indian subcontinent."""

from services.india_rails.engine import IndiaRailsEngine

__all__ = ["IndiaRailsEngine"]
