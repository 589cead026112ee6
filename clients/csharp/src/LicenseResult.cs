using System;

namespace Licensing
{
    /// <summary>
    /// A verified answer: the service's message and data, or, when <see cref="Offline"/>,
    /// the kept offline token's claims (message OFFLINE_TOKEN_VALID) plus key and offline_until.
    /// Dispose it to free the native result at once; otherwise the finalizer does.
    /// </summary>
    public sealed class LicenseResult : IDisposable
    {
        private readonly ResultHandle handle;

        internal LicenseResult(ResultHandle handle)
        {
            this.handle = handle;
            Message = Native.Read(Native.lc_result_message(handle));
            DataJson = Native.Read(Native.lc_result_data_json(handle));
            Offline = Native.lc_result_offline(handle);
        }

        public string Message { get; private set; }

        /// <summary>The data as JSON ("null" when the answer has none).</summary>
        public string DataJson { get; private set; }

        public bool Offline { get; private set; }

        /// <summary>A top-level string of the data ("key", "expires_at", "subscription_name", "lease_expires_at", ...); null when absent.</summary>
        public string GetString(string name)
        {
            using (var strings = new NativeStrings())
            {
                return Native.Read(Native.lc_result_string(handle, strings.Add(name)));
            }
        }

        /// <summary>A top-level integer of the data ("subscription_level", "remaining", ...); null when absent.</summary>
        public long? GetInteger(string name)
        {
            using (var strings = new NativeStrings())
            {
                long value;
                return Native.lc_result_integer(handle, strings.Add(name), out value) ? value : (long?)null;
            }
        }

        /// <summary>Whether the data's features list this entitlement.</summary>
        public bool HasFeature(string feature)
        {
            using (var strings = new NativeStrings())
            {
                return Native.lc_result_has_feature(handle, strings.Add(feature));
            }
        }

        public void Dispose()
        {
            handle.Dispose();
        }
    }
}
