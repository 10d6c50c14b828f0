"""Below the pod: containerd, RuntimeClasses, the kubelet."""
