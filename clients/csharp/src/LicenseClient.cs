using System;
using System.Runtime.InteropServices;

namespace Licensing
{
    /// <summary>
    /// The client of the licensing service for one application, over the C library
    /// (liblicensing): every answer is accepted only once it verifies against the
    /// application's pinned public key. One client serves any number of threads.
    /// </summary>
    public sealed class LicenseClient : IDisposable
    {
        private static readonly Native.ClockFn ClockCallback = ClockFromNative;
        private static readonly IntPtr ClockPointer = Marshal.GetFunctionPointerForDelegate(ClockCallback);

        private readonly ClientHandle handle;

        /// <summary>
        /// url: the service's base URL; appId: the application's id; publicKey: its
        /// public key as PEM or JWK JSON (pinned in the program); stateDir: where the
        /// offline token is kept (null: no offline use).
        /// </summary>
        public LicenseClient(string url, string appId, string publicKey, string stateDir)
            : this(url, appId, publicKey, stateDir, 0, null)
        {
        }

        /// <summary>
        /// timeoutMs: the longest one call may take, retries included (0: 10,000);
        /// clock: the time offline tokens and heartbeats go by (null: the system's).
        /// </summary>
        public LicenseClient(string url, string appId, string publicKey, string stateDir, int timeoutMs, Func<DateTimeOffset> clock)
        {
            GCHandle clockHandle = clock == null ? default(GCHandle) : GCHandle.Alloc(clock);
            using (var strings = new NativeStrings())
            {
                IntPtr options = Options(strings.Add(url), strings.Add(appId), strings.Add(publicKey), strings.Add(stateDir), timeoutMs, clockHandle);
                try
                {
                    handle = Native.lc_client_new(options);
                }
                finally
                {
                    Marshal.FreeHGlobal(options);
                }
            }
            if (handle.IsInvalid)
            {
                if (clockHandle.IsAllocated) clockHandle.Free();
                throw new ArgumentException("url, appId or publicKey is missing or malformed (publicKey: the application's Ed25519 public key as PEM or JWK)");
            }
            handle.Clock = clockHandle;
        }

        /// <summary>Authenticates (and on first use activates) the license; when the service cannot be reached, the kept offline token answers while it is valid.</summary>
        public LicenseResult Check(string license = null, string username = null, string password = null, string hwid = null)
        {
            using (var strings = new NativeStrings())
            {
                Native.Credentials credentials = strings.Credentials(license, username, password, hwid);
                ResultHandle result;
                return Take(Native.lc_check(handle, ref credentials, out result), result);
            }
        }

        /// <summary>Holds this device's floating seat for `seconds` to work offline; its offline token is kept.</summary>
        public LicenseResult Borrow(string hwid, long seconds, string license = null, string username = null, string password = null)
        {
            Require(hwid, "hwid");
            using (var strings = new NativeStrings())
            {
                Native.Credentials credentials = strings.Credentials(license, username, password, hwid);
                ResultHandle result;
                return Take(Native.lc_borrow(handle, ref credentials, seconds, out result), result);
            }
        }

        /// <summary>Gives this device's floating seat back at once (SEAT_RELEASED).</summary>
        public LicenseResult Release(string hwid, string license = null, string username = null, string password = null)
        {
            Require(hwid, "hwid");
            using (var strings = new NativeStrings())
            {
                Native.Credentials credentials = strings.Credentials(license, username, password, hwid);
                ResultHandle result;
                return Take(Native.lc_release(handle, ref credentials, out result), result);
            }
        }

        /// <summary>Releases the device `hwid`, or every device of the license when null (HWID_RESET).</summary>
        public LicenseResult ResetHwid(string license = null, string username = null, string password = null, string hwid = null)
        {
            using (var strings = new NativeStrings())
            {
                Native.Credentials credentials = strings.Credentials(license, username, password, hwid);
                ResultHandle result;
                return Take(Native.lc_reset_hwid(handle, ref credentials, out result), result);
            }
        }

        /// <summary>Sets or replaces the username and password of a license.</summary>
        public LicenseResult Register(string license, string username, string password)
        {
            Require(license, "license");
            Require(username, "username");
            Require(password, "password");
            using (var strings = new NativeStrings())
            {
                ResultHandle result;
                return Take(Native.lc_register(handle, strings.Add(license), strings.Add(username), strings.Add(password), out result), result);
            }
        }

        /// <summary>
        /// Counts `amount` against a usage counter (USAGE_RECORDED; the data is the counter).
        /// One usage id goes with every retry, so a lost answer counts once; pass your own
        /// to repeat a call that ended in NETWORK_ERROR.
        /// </summary>
        public LicenseResult RecordUsage(string counter, long amount = 1, string usageId = null, string license = null, string username = null, string password = null, string hwid = null)
        {
            Require(counter, "counter");
            using (var strings = new NativeStrings())
            {
                Native.Credentials credentials = strings.Credentials(license, username, password, hwid);
                ResultHandle result;
                return Take(Native.lc_record_usage(handle, ref credentials, strings.Add(counter), amount, strings.Add(usageId), out result), result);
            }
        }

        /// <summary>
        /// Takes or renews this device's floating seat now (throwing the refusal, e.g.
        /// SEATS_EXHAUSTED) and keeps it on a thread of its own; onLost runs on that
        /// thread, once, when the seat is lost, and must not call the heartbeat.
        /// intervalMs: 0 renews at about half the lease.
        /// </summary>
        public Heartbeat StartHeartbeat(string hwid, Action<LicenseException> onLost = null, string license = null, string username = null, string password = null, int intervalMs = 0)
        {
            Require(hwid, "hwid");
            return Heartbeat.Start(handle, license, username, password, hwid, onLost, intervalMs);
        }

        /// <summary>This machine's id for this application (SHA-256 in hex of the system's machine id, the user's name and the app id).</summary>
        public string MachineId()
        {
            string id = Native.Read(Native.lc_machine_id(handle));
            if (id == null) throw new LicenseException("INTERNAL_ERROR", null, "out of memory");
            return id;
        }

        /// <summary>Frees the native client once every call and heartbeat on it has ended.</summary>
        public void Dispose()
        {
            handle.Dispose();
        }

        internal ClientHandle Handle { get { return handle; } }

        internal LicenseResult Take(int status, ResultHandle result)
        {
            if (status == Native.Ok) return new LicenseResult(result);
            result.Dispose();
            throw Native.LastError(handle);
        }

        private static void Require(string value, string name)
        {
            if (value == null) throw new ArgumentNullException(name);
        }

        /// <summary>
        /// lc_options laid out by hand: its timeout_ms is a C long, 4 bytes on Windows
        /// and on 32-bit systems, 8 elsewhere, which no fixed managed layout matches.
        /// </summary>
        private static IntPtr Options(IntPtr url, IntPtr appId, IntPtr publicKey, IntPtr stateDir, int timeoutMs, GCHandle clock)
        {
            int pointer = IntPtr.Size;
            bool longIs64 = pointer == 8 && Environment.OSVersion.Platform != PlatformID.Win32NT;
            int timeoutAt = 4 * pointer;
            int clockAt = (timeoutAt + (longIs64 ? 8 : 4) + pointer - 1) / pointer * pointer;
            int size = clockAt + 2 * pointer;
            IntPtr options = Marshal.AllocHGlobal(size);
            for (int i = 0; i < size; i++) Marshal.WriteByte(options, i, 0);
            Marshal.WriteIntPtr(options, 0, url);
            Marshal.WriteIntPtr(options, pointer, appId);
            Marshal.WriteIntPtr(options, 2 * pointer, publicKey);
            Marshal.WriteIntPtr(options, 3 * pointer, stateDir);
            if (longIs64) Marshal.WriteInt64(options, timeoutAt, timeoutMs);
            else Marshal.WriteInt32(options, timeoutAt, timeoutMs);
            if (clock.IsAllocated)
            {
                Marshal.WriteIntPtr(options, clockAt, ClockPointer);
                Marshal.WriteIntPtr(options, clockAt + pointer, GCHandle.ToIntPtr(clock));
            }
            return options;
        }

        [MonoPInvokeCallback(typeof(Native.ClockFn))]
        private static long ClockFromNative(IntPtr clockData)
        {
            try
            {
                return ((Func<DateTimeOffset>)GCHandle.FromIntPtr(clockData).Target)().ToUnixTimeMilliseconds();
            }
            catch (Exception)
            {
                return DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            }
        }
    }
}
