# With no real-time task anywhere, CPU 1 goes offline and online again:
# the guest driver unregisters vCPU 1's area and registers it again.
sleep 1
echo 0 > /sys/devices/system/cpu/cpu1/online
echo "ONLINE: $(cat /sys/devices/system/cpu/online)"
sleep 1
echo 1 > /sys/devices/system/cpu/cpu1/online
echo "ONLINE AGAIN: $(cat /sys/devices/system/cpu/online)"
