from django.apps import AppConfig


class BattlefieldConfig(AppConfig):
    name = "battlefield"
    default_auto_field = "django.db.models.BigAutoField"
