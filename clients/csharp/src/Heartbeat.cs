using System;
using System.Runtime.InteropServices;

namespace Licensing
{
    /// <summary>
    /// A floating seat kept by the C library's heartbeat thread (<see cref="LicenseClient.StartHeartbeat"/>).
    /// Stop or Dispose gives the seat back; so does the process's normal exit.
    /// </summary>
    public sealed class Heartbeat : IDisposable
    {
        private static readonly Native.LostFn LostCallback = OnLostFromNative;
        private static readonly IntPtr LostPointer = Marshal.GetFunctionPointerForDelegate(LostCallback);

        private readonly object gate = new object();
        private readonly ClientHandle client;
        private readonly Action<LicenseException> onLost;
        private IntPtr handle;
        private GCHandle self;

        private Heartbeat(ClientHandle client, Action<LicenseException> onLost)
        {
            this.client = client;
            this.onLost = onLost;
        }

        internal static Heartbeat Start(ClientHandle client, string license, string username, string password, string hwid, Action<LicenseException> onLost, int intervalMs)
        {
            var heartbeat = new Heartbeat(client, onLost);
            heartbeat.self = GCHandle.Alloc(heartbeat);
            bool referenced = false;
            // The client stays alive while its heartbeat runs: the C library requires it.
            client.DangerousAddRef(ref referenced);
            using (var strings = new NativeStrings())
            {
                Native.Credentials credentials = strings.Credentials(license, username, password, hwid);
                var options = new Native.HeartbeatOptions { OnLost = LostPointer, UserData = GCHandle.ToIntPtr(heartbeat.self), IntervalMs = intervalMs };
                IntPtr started;
                if (Native.lc_heartbeat_start(client, ref credentials, ref options, out started) != Native.Ok)
                {
                    LicenseException failure = Native.LastError(client);
                    heartbeat.self.Free();
                    client.DangerousRelease();
                    throw failure;
                }
                heartbeat.handle = started;
            }
            AppDomain.CurrentDomain.ProcessExit += heartbeat.OnProcessExit;
            return heartbeat;
        }

        /// <summary>The end of the lease as of the last renewal.</summary>
        public DateTimeOffset LeaseExpiresAt
        {
            get
            {
                lock (gate)
                {
                    return DateTimeOffset.FromUnixTimeMilliseconds(Native.lc_heartbeat_lease_expires_at(Running()));
                }
            }
        }

        /// <summary>Why the seat was lost; null while it is held.</summary>
        public string LostCode
        {
            get
            {
                lock (gate)
                {
                    return Native.Read(Native.lc_heartbeat_lost_code(Running()));
                }
            }
        }

        /// <summary>Renews now instead of when planned (e.g. when the computer wakes from sleep); throws the loss when the seat is gone.</summary>
        public void RenewNow()
        {
            lock (gate)
            {
                if (Native.lc_heartbeat_renew_now(Running()) != Native.Ok) throw Native.LastError(client);
            }
        }

        /// <summary>Stops renewing and gives the seat back unless it was lost; throws when the release failed. Must not be called from onLost.</summary>
        public void Stop()
        {
            lock (gate)
            {
                if (handle == IntPtr.Zero) return;
                AppDomain.CurrentDomain.ProcessExit -= OnProcessExit;
                int status = Native.lc_heartbeat_stop(handle);
                handle = IntPtr.Zero;
                self.Free();
                try
                {
                    if (status != Native.Ok) throw Native.LastError(client);
                }
                finally
                {
                    client.DangerousRelease();
                }
            }
        }

        /// <summary>Stop, without the release's failure (the seat then lapses with its lease).</summary>
        public void Dispose()
        {
            try
            {
                Stop();
            }
            catch (LicenseException)
            {
            }
            catch (ObjectDisposedException)
            {
                // The client was disposed first: the failure cannot be read, and the seat lapses all the same.
            }
        }

        private IntPtr Running()
        {
            if (handle == IntPtr.Zero) throw new ObjectDisposedException("Heartbeat");
            return handle;
        }

        private void OnProcessExit(object sender, EventArgs e)
        {
            Dispose();
        }

        [MonoPInvokeCallback(typeof(Native.LostFn))]
        private static void OnLostFromNative(IntPtr userData, IntPtr code, IntPtr dataJson)
        {
            // No exception may unwind into the C library's thread.
            try
            {
                var heartbeat = (Heartbeat)GCHandle.FromIntPtr(userData).Target;
                if (heartbeat.onLost != null) heartbeat.onLost(new LicenseException(Native.Read(code), Native.Read(dataJson), "the seat was lost"));
            }
            catch (Exception)
            {
            }
        }
    }
}
