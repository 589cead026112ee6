"""The one error every call raises."""


class LicenseError(Exception):
    """Every failure: `code` is the service's message, or one of the client's own codes (README, "Errors")."""

    def __init__(self, code, data=None, status=None, detail=None):
        super().__init__(code if detail is None else "%s: %s" % (code, detail))
        self.code = code
        self.data = data
        self.status = status
