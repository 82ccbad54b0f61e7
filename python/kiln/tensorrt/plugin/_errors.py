"""How a decorated plugin's own functions fail: as a ``PluginFunctionError`` naming the function and the plugin."""


class PluginFunctionError(RuntimeError):
    """A decorated plugin's function raised or returned something unusable."""


def call_user_function(plugin_def, role, function, *args, **kwargs):
    """Calls one of the plugin's functions (`role`: "@register", "@impl", ...); what it raises leaves as a
    PluginFunctionError saying which function of which plugin raised what."""
    try:
        return function(*args, **kwargs)
    except PluginFunctionError:
        raise
    except Exception as error:  # noqa: BLE001 (any exception of the user's function is reported, with its type)
        raise PluginFunctionError(
            f"the {role} function of {plugin_def.plugin_id} raised {type(error).__name__}: {error}"
        ) from error
