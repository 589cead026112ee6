using System;

namespace Licensing
{
    /// <summary>
    /// Every failure of a licensing call. <see cref="Code"/> is the service's
    /// message for a refusal (LICENSE_EXPIRED, HWID_MISMATCH, SEATS_EXHAUSTED, ...,
    /// or a 400's sentence), or INVALID_SIGNATURE (an answer that does not verify),
    /// NETWORK_ERROR (no usable answer within the timeout), OFFLINE_TOKEN_EXPIRED
    /// (the kept token is past its end), INVALID_ARGUMENT, INTERNAL_ERROR.
    /// </summary>
    public class LicenseException : Exception
    {
        public LicenseException(string code, string dataJson, string detail)
            : base(string.IsNullOrEmpty(detail) ? code : code + ": " + detail)
        {
            Code = code;
            DataJson = dataJson;
        }

        public string Code { get; private set; }

        /// <summary>What the service sent with the refusal, as JSON (e.g. {"max_devices":1,"next_seat_at":"..."}); null when nothing.</summary>
        public string DataJson { get; private set; }
    }
}
