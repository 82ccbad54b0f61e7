"""Every case of bench/plugins_gpu.py, in the order the table prints them."""
import plugin_cases_nms

CASES = plugin_cases_nms.CASES
