"""Every case of bench/plugins_gpu.py, in the order the table prints them."""
import plugin_cases_bert
import plugin_cases_indexing
import plugin_cases_nms
import plugin_cases_norm
import plugin_cases_sampling

CASES = (plugin_cases_nms.CASES + plugin_cases_sampling.CASES + plugin_cases_norm.CASES + plugin_cases_bert.CASES
         + plugin_cases_indexing.CASES)
