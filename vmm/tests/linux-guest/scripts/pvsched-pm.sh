# Hibernation up to the point where the image would be written
# (pm_test=core: CPU 1 goes offline, syscore_suspend() and
# syscore_resume() run on CPU 0, CPU 1 comes back, after the debug mode's
# 5 s wait with interrupts off): the guest driver unregisters both areas
# and registers them again. Needs CONFIG_HIBERNATION and CONFIG_PM_DEBUG;
# loads the guest driver first where it is a module (make guest's).
[ -e /lib/modules/pvsched_guest.ko ] && insmod /lib/modules/pvsched_guest.ko
dmesg | grep pvsched_guest
echo core > /sys/power/pm_test
if echo disk > /sys/power/state; then
	echo "HIBERNATE: ok"
else
	echo "HIBERNATE: failed"
fi
echo "ONLINE: $(cat /sys/devices/system/cpu/online)"
