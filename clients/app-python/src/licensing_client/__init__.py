"""Client of the licensing service for the programs it licenses: signed answers verified, offline tokens, license files, floating seats, trials."""

from .client import ActivationRequest, Heartbeat, LicenseClient, LicenseError, LicenseResult
from ._machine import machine_id

__all__ = ["ActivationRequest", "Heartbeat", "LicenseClient", "LicenseError", "LicenseResult", "machine_id"]
__version__ = "0.1.0"
