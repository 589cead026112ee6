namespace Licensing
{
    /// <summary>An activation request: the text to hand over, and the customer portal's link holding it (null without a portal URL).</summary>
    public sealed class ActivationRequestResult
    {
        internal ActivationRequestResult(string request, string link)
        {
            Request = request;
            Link = link;
        }

        /// <summary>lfr1. and the base64url of {app_id, license, hwid, nonce, lifetime_seconds?, encrypt?}.</summary>
        public string Request { get; private set; }

        /// <summary>&lt;portal&gt;/activate/#&lt;request&gt;, for a QR code; null without a portal URL.</summary>
        public string Link { get; private set; }
    }
}
