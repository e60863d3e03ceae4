# Garbage to CPU 0's bank of the pvsched device: an address beyond RAM,
# CPU 1's area, an unaligned address, area version 2; each status. Then,
# with no real-time task anywhere, CPU 1 goes offline and online again.
g0=$(pvdev show | sed -n 's/^cpu0 gpa=\([^ ]*\).*/\1/p')
g1=$(pvdev show | sed -n 's/^cpu1 gpa=\([^ ]*\).*/\1/p')
echo "AREAS: $g0 $g1"
s1=$(pvdev cmd 0 0x7ff000000000 1)
s2=$(pvdev cmd 0 "$g1" 1)
s3=$(pvdev cmd 0 $((g0 + 8)) 1)
s4=$(pvdev cmd 0 "$g0" 2)
echo "GARBAGE: $s1 $s2 $s3 $s4"
sleep 1
echo 0 > /sys/devices/system/cpu/cpu1/online
echo "ONLINE: $(cat /sys/devices/system/cpu/online)"
sleep 1
echo 1 > /sys/devices/system/cpu/cpu1/online
echo "ONLINE AGAIN: $(cat /sys/devices/system/cpu/online)"
pvdev show
