"""Log in (throttled), sign up (when the operator allows it), change password."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.contrib.messages.views import SuccessMessageMixin
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.debug import sensitive_post_parameters

from accounts.throttle import TOO_MANY, LoginThrottle


class LoginView(auth_views.LoginView):
    """Django's login, refusing further attempts once an IP + username hits the limit."""

    template_name = "registration/login.html"
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        self.throttle = LoginThrottle(request, request.POST.get("username", ""))
        if self.throttle.blocked():
            # An unbound form: a blocked attempt must not even check the password.
            form = self.form_class(request, initial={"username": request.POST.get("username")})
            context = self.get_context_data(form=form, blocked=TOO_MANY)
            return self.render_to_response(context, status=429)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        self.throttle.reset()
        return super().form_valid(form)

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        self.throttle.record()
        return super().form_invalid(form)

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "allow_signup": settings.GAIA_ALLOW_SIGNUP}


class PasswordChangeView(SuccessMessageMixin, auth_views.PasswordChangeView):
    template_name = "registration/password_change.html"
    success_url = reverse_lazy("web-settings")
    success_message = "Your password was changed."


@sensitive_post_parameters("password1", "password2")
@csrf_protect
@never_cache
def signup(request: HttpRequest) -> HttpResponse:
    """Self-service accounts, only when GAIA_ALLOW_SIGNUP is on (else staff create users)."""
    if not settings.GAIA_ALLOW_SIGNUP:
        raise Http404("Sign-up is turned off.")
    if request.user.is_authenticated:
        return redirect("web-dashboard")
    form = UserCreationForm(request.POST or None)
    if request.method == "POST":
        throttle = LoginThrottle(request, "", kind="signup")
        if throttle.blocked():
            return render(
                request,
                "registration/signup.html",
                {"form": UserCreationForm(), "blocked": TOO_MANY},
                status=429,
            )
        throttle.record()  # every sign-up counts: accounts are not free to mass-create
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {user.username}. Your memory starts empty.")
            return redirect("web-dashboard")
    return render(request, "registration/signup.html", {"form": form})
